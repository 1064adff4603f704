#include "harness/history_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <regex>
#include <stdexcept>
#include <thread>
#include <tuple>

#include <fmt/format.h>

#include "harness/fingerprint.h"
#include "harness/stats.h"

namespace bb {
namespace {

using json = nlohmann::json;

// The schema. `cases` holds the numbers a history reads (small rows, scanned in key order);
// `case_data` the rest of each entry and its kept samples (little-endian float64), read only to
// rebuild a document. Nothing of a results file is dropped: runs.document is the file without its
// benchmarks and checks, which live in case_data and checks.
constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS machines(id TEXT PRIMARY KEY, description TEXT NOT NULL,
                                    fingerprint TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs(id INTEGER PRIMARY KEY, machine TEXT NOT NULL, git_commit TEXT NOT NULL,
                                date TEXT NOT NULL, label TEXT NOT NULL, cases INTEGER NOT NULL,
                                complete INTEGER NOT NULL, source TEXT NOT NULL, added_at TEXT NOT NULL,
                                document TEXT NOT NULL, UNIQUE(machine, git_commit, date, label));
CREATE INDEX IF NOT EXISTS runs_by_date ON runs(machine, date, id);
CREATE TABLE IF NOT EXISTS case_names(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS cases(run_id INTEGER NOT NULL, case_id INTEGER NOT NULL,
                                 repetition INTEGER NOT NULL, median_s REAL NOT NULL,
                                 PRIMARY KEY(run_id, case_id, repetition)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS case_data(run_id INTEGER NOT NULL, position INTEGER NOT NULL,
                                     entry TEXT NOT NULL, samples BLOB,
                                     PRIMARY KEY(run_id, position)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS checks(run_id INTEGER NOT NULL, position INTEGER NOT NULL,
                                  name TEXT NOT NULL, verdict TEXT NOT NULL, body TEXT NOT NULL,
                                  PRIMARY KEY(run_id, position)) WITHOUT ROWID;
)sql";

// A prepared statement that finalizes itself.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK)
      throw std::runtime_error(std::string("history store: ") + sqlite3_errmsg(db));
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, const std::string& v) {
    check(sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
    return *this;
  }
  Statement& bind(int i, long long v) {
    check(sqlite3_bind_int64(stmt_, i, v));
    return *this;
  }
  Statement& bind(int i, double v) {
    check(sqlite3_bind_double(stmt_, i, v));
    return *this;
  }
  Statement& bind_blob(int i, const std::vector<double>& v) {
    check(v.empty() ? sqlite3_bind_null(stmt_, i)
                    : sqlite3_bind_blob(stmt_, i, v.data(), static_cast<int>(v.size() * 8),
                                        SQLITE_TRANSIENT));
    return *this;
  }
  // True while a row is ready.
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw std::runtime_error(std::string("history store: ") + sqlite3_errmsg(db_));
  }
  void run() {
    step();
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  long long integer(int col) const { return sqlite3_column_int64(stmt_, col); }
  double real(int col) const { return sqlite3_column_double(stmt_, col); }
  std::string text(int col) const {
    const auto* p = sqlite3_column_text(stmt_, col);
    return p ? std::string(reinterpret_cast<const char*>(p),
                           static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)))
             : std::string();
  }
  std::vector<double> blob(int col) const {
    std::vector<double> v(static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)) / 8);
    if (!v.empty()) std::memcpy(v.data(), sqlite3_column_blob(stmt_, col), v.size() * 8);
    return v;
  }

 private:
  void check(int rc) const {
    if (rc != SQLITE_OK)
      throw std::runtime_error(std::string("history store: ") + sqlite3_errmsg(db_));
  }
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

json canonical_fingerprint(json fp) {
  if (fp.is_object() && fp.contains("gpus") && fp["gpus"].is_array() && fp["gpus"].empty())
    fp.erase("gpus");
  return fp;
}

std::string now_utc() {
  const auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The timed entries of a document (Google Benchmark's aggregates are derived, not stored apart).
bool is_case_entry(const json& b) {
  return b.value("run_type", "iteration") == "iteration" && !b.value("error_occurred", false) &&
         b.contains("median_s") && b["median_s"].is_number();
}

}  // namespace

std::string machine_id(const json& fingerprint) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a 64 offset basis
  for (const unsigned char ch : canonical_fingerprint(fingerprint).dump()) {
    h ^= ch;
    h *= 1099511628211ull;  // FNV prime
  }
  return fmt::format("{:016x}", h);
}

RunIdentity run_identity(const json& doc) {
  const json& bb = doc.at("context").at("boundbench");
  const json fp = canonical_fingerprint(recorded_fingerprint(doc).fields);
  RunIdentity id;
  id.machine = machine_id(fp);
  const json cpu = fp.value("cpu", json::object());
  const json topo = fp.value("topology", json::object());
  id.description = fmt::format("{}, {} cores", cpu.value("model_name", std::string("?")),
                               topo.value("cores", 0));
  for (const auto& g : fp.value("gpus", json::array()))
    id.description += ", " + g.value("name", std::string("GPU"));
  id.commit = bb.value("git_commit", std::string());
  if (id.commit.empty()) id.commit = "unknown";
  id.date = bb.value("date", doc["context"].value("date", std::string()));
  id.label = bb.value("label", std::string());
  return id;
}

HistoryStore::HistoryStore(const std::string& path) : path_(path) {
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    throw std::invalid_argument(path + ": cannot open the history store (" + why + ")");
  }
  // Another add holding the write lock is waited for (CI jobs adding at once), up to a minute.
  sqlite3_busy_timeout(db_, 60000);
  try {
    // A file that is not SQLite fails here ("file is not a database").
    long long tables = 0, meta_tables = 0;
    {
      Statement probe(db_,
                      "SELECT count(*), sum(type='table' AND name='meta') FROM sqlite_master "
                      "WHERE name NOT LIKE 'sqlite_%'");
      probe.step();
      tables = probe.integer(0);
      meta_tables = probe.integer(1);
    }
    if (tables > 0 && meta_tables == 0)
      throw std::invalid_argument(path +
                                  ": an SQLite database, but not a boundbench history store");
    // Switching to WAL takes an exclusive lock that SQLite does not wait for through the busy
    // handler: two adds opening a new store at once saw "database is locked" here (ctest under
    // load). Retried for as long as the busy timeout would wait.
    for (const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);;) {
      const int rc = sqlite3_exec(db_, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
      if (rc == SQLITE_OK) break;
      if ((rc != SQLITE_BUSY && rc != SQLITE_LOCKED) || std::chrono::steady_clock::now() > give_up)
        exec("PRAGMA journal_mode=WAL");  // throws with SQLite's message
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    exec("PRAGMA synchronous=NORMAL");  // WAL: durable at each checkpoint, atomic always
    exec("BEGIN IMMEDIATE");
    try {
      exec(kSchema);
      exec("INSERT OR IGNORE INTO meta VALUES('format', 'boundbench-history')");
      exec(fmt::format("INSERT OR IGNORE INTO meta VALUES('version', '{}')", kHistoryFormatVersion)
               .c_str());
      Statement meta(db_, "SELECT key, value FROM meta WHERE key IN ('format', 'version')");
      std::map<std::string, std::string> m;
      while (meta.step()) m[meta.text(0)] = meta.text(1);
      if (m["format"] != "boundbench-history")
        throw std::invalid_argument(path + ": not a boundbench history store (format '" +
                                    m["format"] + "')");
      if (m["version"] != std::to_string(kHistoryFormatVersion))
        throw std::invalid_argument(path + ": history store format version " + m["version"] +
                                    ", this boundbench reads " +
                                    std::to_string(kHistoryFormatVersion));
      exec("COMMIT");
    } catch (...) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
  } catch (const std::runtime_error& e) {
    sqlite3_close(db_);
    db_ = nullptr;
    const std::string what = e.what();
    if (what.find("not a database") != std::string::npos)
      throw std::invalid_argument(path + ": not a boundbench history store (not SQLite)");
    throw;
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

HistoryStore::~HistoryStore() { sqlite3_close(db_); }

void HistoryStore::exec(const char* sql) const {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string what = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    throw std::runtime_error("history store " + path_ + ": " + what);
  }
}

std::vector<AddedRun> HistoryStore::add(const std::vector<std::pair<std::string, json>>& runs,
                                        const std::function<void(const AddedRun&)>& after_each) {
  std::vector<AddedRun> out;
  exec("BEGIN IMMEDIATE");
  try {
    Statement find(db_,
                   "SELECT id, cases FROM runs WHERE machine=?1 AND git_commit=?2 AND date=?3 "
                   "AND label=?4");
    Statement machine(db_, "INSERT OR IGNORE INTO machines VALUES(?1, ?2, ?3)");
    Statement insert_run(db_,
                         "INSERT INTO runs(machine, git_commit, date, label, cases, complete, "
                         "source, added_at, document) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
    Statement name_insert(db_, "INSERT OR IGNORE INTO case_names(name) VALUES(?1)");
    Statement name_find(db_, "SELECT id FROM case_names WHERE name=?1");
    Statement insert_case(db_, "INSERT INTO cases VALUES(?1, ?2, ?3, ?4)");
    Statement insert_data(db_, "INSERT INTO case_data VALUES(?1, ?2, ?3, ?4)");
    Statement insert_check(db_, "INSERT INTO checks VALUES(?1, ?2, ?3, ?4, ?5)");
    for (const auto& [source, doc] : runs) {
      AddedRun added{source, run_identity(doc), 0, "added"};
      for (const auto& b : doc["benchmarks"])
        if (is_case_entry(b)) ++added.cases;
      const RunIdentity& id = added.id;
      find.bind(1, id.machine).bind(2, id.commit).bind(3, id.date).bind(4, id.label);
      long long old_id = -1, old_cases = 0;
      if (find.step()) {
        old_id = find.integer(0);
        old_cases = find.integer(1);
      }
      find.run();
      if (old_id >= 0 && static_cast<long long>(added.cases) <= old_cases) {
        added.outcome = "already stored";
        out.push_back(added);
        if (after_each) after_each(out.back());
        continue;
      }
      if (old_id >= 0) {  // the same run, its file grown since: replace the shorter copy
        added.outcome = "updated";
        for (const char* table : {"runs WHERE id", "cases WHERE run_id", "case_data WHERE run_id",
                                  "checks WHERE run_id"})
          exec(fmt::format("DELETE FROM {}={}", table, old_id).c_str());
      }
      machine.bind(1, id.machine)
          .bind(2, id.description)
          .bind(3, canonical_fingerprint(recorded_fingerprint(doc).fields).dump())
          .run();
      json rest = doc;
      rest.erase("benchmarks");
      rest.erase("checks");
      const json& bb = doc["context"]["boundbench"];
      insert_run.bind(1, id.machine)
          .bind(2, id.commit)
          .bind(3, id.date)
          .bind(4, id.label)
          .bind(5, static_cast<long long>(added.cases))
          .bind(6, static_cast<long long>(bb.value("complete", false)))
          .bind(7, source)
          .bind(8, now_utc())
          .bind(9, rest.dump())
          .run();
      const long long run_id = sqlite3_last_insert_rowid(db_);
      std::map<std::string, long long> name_ids;
      long long position = 0;
      for (const auto& b : doc["benchmarks"]) {
        json entry = b;
        std::vector<double> samples;
        if (entry.contains("samples_s")) {
          samples = entry["samples_s"].get<std::vector<double>>();
          entry.erase("samples_s");
        }
        insert_data.bind(1, run_id).bind(2, position++).bind(3, entry.dump()).bind_blob(4, samples);
        insert_data.run();
        if (!is_case_entry(b)) continue;
        const std::string name = b.at("name").get<std::string>();
        auto it = name_ids.find(name);
        if (it == name_ids.end()) {
          name_insert.bind(1, name).run();
          name_find.bind(1, name);
          name_find.step();
          it = name_ids.emplace(name, name_find.integer(0)).first;
          name_find.run();
        }
        insert_case.bind(1, run_id)
            .bind(2, it->second)
            .bind(3, b.value("repetition_index", 0LL))
            .bind(4, b["median_s"].get<double>())
            .run();
      }
      position = 0;
      for (const auto& c : doc.value("checks", json::array())) {
        insert_check.bind(1, run_id)
            .bind(2, position++)
            .bind(3, c.value("name", std::string()))
            .bind(4, c.value("verdict", std::string()))
            .bind(5, c.dump())
            .run();
      }
      out.push_back(added);
      if (after_each) after_each(out.back());
    }
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  return out;
}

std::size_t HistoryStore::run_count() const {
  Statement s(db_, "SELECT count(*) FROM runs");
  s.step();
  return static_cast<std::size_t>(s.integer(0));
}

std::vector<json> HistoryStore::documents(const std::string& machine) const {
  std::vector<json> out;
  exec("BEGIN");  // one snapshot for all the reads
  try {
    Statement runs(db_,
                   "SELECT id, document FROM runs WHERE ?1 = '' OR machine = ?1 "
                   "ORDER BY date, id");
    Statement data(db_, "SELECT entry, samples FROM case_data WHERE run_id=?1 ORDER BY position");
    Statement checks(db_, "SELECT body FROM checks WHERE run_id=?1 ORDER BY position");
    runs.bind(1, machine);
    while (runs.step()) {
      json doc = json::parse(runs.text(1));
      doc["benchmarks"] = json::array();
      doc["checks"] = json::array();
      data.bind(1, runs.integer(0));
      while (data.step()) {
        json entry = json::parse(data.text(0));
        const std::vector<double> samples = data.blob(1);
        if (!samples.empty()) entry["samples_s"] = samples;
        doc["benchmarks"].push_back(std::move(entry));
      }
      data.run();
      checks.bind(1, runs.integer(0));
      while (checks.step()) doc["checks"].push_back(json::parse(checks.text(0)));
      checks.run();
      out.push_back(std::move(doc));
    }
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  return out;
}

std::vector<CaseRunInterval> HistoryStore::case_intervals(const std::string& name) const {
  std::vector<CaseRunInterval> out;
  // Entries are stored as nlohmann's compact dump: the quoted name narrows the scan, the parse
  // decides.
  const std::string needle = "\"name\":" + json(name).dump();
  exec("BEGIN");
  try {
    Statement s(db_,
                "SELECT r.id, r.machine, r.git_commit, r.date, r.label, d.entry FROM case_data d "
                "JOIN runs r ON r.id = d.run_id WHERE instr(d.entry, ?1) > 0 ORDER BY r.id");
    s.bind(1, needle);
    long long last = -1;
    while (s.step()) {
      const json entry = json::parse(s.text(5));
      if (entry.value("name", "") != name) continue;
      const double lo = entry.value("median_ci_low_s", 0.0),
                   hi = entry.value("median_ci_high_s", 0.0);
      if (s.integer(0) != last) {
        out.push_back({s.text(1), s.text(2), s.text(3), s.text(4), lo, hi});
        last = s.integer(0);
      } else if (lo > 0 && hi > 0) {  // another repetition: the widest
        CaseRunInterval& c = out.back();
        c.low_s = c.low_s > 0 ? std::min(c.low_s, lo) : lo;
        c.high_s = std::max(c.high_s, hi);
      }
    }
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  return out;
}

History HistoryStore::history(const HistoryFilter& filter) const {
  std::regex case_re;
  try {
    case_re = std::regex(filter.case_regex, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw std::invalid_argument("--case '" + filter.case_regex +
                                "' is not a valid regex: " + e.what());
  }
  History h;
  exec("BEGIN");
  try {
    // Runs per machine in measurement order; run id → (machine index, position).
    std::map<long long, std::pair<std::size_t, std::uint32_t>> where;
    {
      Statement runs(db_,
                     "SELECT r.id, r.machine, m.description, r.git_commit, r.date, r.label "
                     "FROM runs r JOIN machines m ON m.id = r.machine ORDER BY r.machine, r.date, "
                     "r.id");
      while (runs.step()) {
        const std::string machine = runs.text(1), description = runs.text(2), date = runs.text(4);
        if (!filter.machine.empty() && !machine.starts_with(filter.machine) &&
            description.find(filter.machine) == std::string::npos)
          continue;
        if (!filter.since.empty() && date < filter.since) continue;
        if (h.machines.empty() || h.machines.back().machine != machine)
          h.machines.push_back({machine, description, {}, {}, {}});
        MachineRuns& m = h.machines.back();
        where[runs.integer(0)] = {h.machines.size() - 1,
                                  static_cast<std::uint32_t>(m.commits.size())};
        m.commits.push_back(runs.text(3));
        m.dates.push_back(date);
        m.labels.push_back(runs.text(5));
      }
    }
    std::vector<std::string> names;
    std::vector<char> wanted;
    {
      Statement s(db_, "SELECT id, name FROM case_names ORDER BY id");
      while (s.step()) {
        const auto id = static_cast<std::size_t>(s.integer(0));
        if (names.size() <= id) {
          names.resize(id + 1);
          wanted.resize(id + 1, 0);
        }
        names[id] = s.text(1);
        wanted[id] = static_cast<char>(std::regex_search(names[id], case_re));
      }
    }
    // Series by (machine, case id); repetitions of one run: the median of their medians.
    std::map<std::pair<std::size_t, std::size_t>, std::size_t> series_of;
    Statement cases(db_, "SELECT run_id, case_id, median_s FROM cases ORDER BY run_id, case_id");
    long long run = -1;
    std::size_t case_id = 0;
    std::vector<double> reps;
    const auto flush = [&] {
      if (run < 0 || reps.empty()) return;
      const auto w = where.find(run);
      if (w != where.end() && case_id < wanted.size() && wanted[case_id]) {
        auto [it, fresh] = series_of.try_emplace({w->second.first, case_id}, h.cases.size());
        if (fresh) h.cases.push_back({w->second.first, names[case_id], {}, {}});
        CaseSeries& s = h.cases[it->second];
        s.run.push_back(w->second.second);
        s.median_s.push_back(median_of(std::move(reps)));
      }
      reps.clear();
    };
    while (cases.step()) {
      const long long r = cases.integer(0);
      const auto c = static_cast<std::size_t>(cases.integer(1));
      if (r != run || c != case_id) {
        flush();
        run = r;
        case_id = c;
      }
      reps.push_back(cases.real(2));
    }
    flush();
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  // Run ids grow with insertion, not with date: put each series in measurement order.
  for (auto& s : h.cases) {
    if (std::is_sorted(s.run.begin(), s.run.end())) continue;
    std::vector<std::size_t> order(s.run.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](auto a, auto b) { return s.run[a] < s.run[b]; });
    CaseSeries sorted{s.machine, s.name, {}, {}};
    for (const auto i : order) {
      sorted.run.push_back(s.run[i]);
      sorted.median_s.push_back(s.median_s[i]);
    }
    s = std::move(sorted);
  }
  std::sort(h.cases.begin(), h.cases.end(), [](const CaseSeries& a, const CaseSeries& b) {
    return std::tie(a.machine, a.name) < std::tie(b.machine, b.name);
  });
  return h;
}

}  // namespace bb
