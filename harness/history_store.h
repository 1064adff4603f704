// The history store: results files kept in one SQLite database (`boundbench history add`), keyed
// by machine fingerprint, git commit, date and label, with every case's entry, kept samples and
// checks, so that the spread between runs and the commits where a case moved can be read back.
// Each add is one IMMEDIATE transaction (all its files or none: a killed add leaves the store as it
// was), the journal is WAL with a busy timeout (two CI jobs adding at once both land), and a run
// already held is not added twice.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

struct sqlite3;

namespace bb {

inline constexpr const char* kDefaultHistoryPath = "boundbench-history.sqlite";
inline constexpr int kHistoryFormatVersion = 1;

// The machine a run was measured on as 16 hex digits: FNV-1a (64-bit) of its fingerprint's
// canonical JSON (keys sorted; an empty "gpus" list dropped, so a host-only build of the same
// machine is the same machine).
std::string machine_id(const nlohmann::json& fingerprint);

// One results file as the store keys it (load_results has validated the file).
struct RunIdentity {
  std::string machine;      // machine_id
  std::string description;  // "AMD EPYC, 2 cores" (+ GPU names)
  std::string commit;       // context.boundbench.git_commit; "unknown" without
  std::string date;         // context.boundbench.date (ISO 8601, UTC), else context.date
  std::string label;        // context.boundbench.label; "" without
};
RunIdentity run_identity(const nlohmann::json& doc);

struct AddedRun {
  std::string source;  // the file name given
  RunIdentity id;
  std::size_t cases = 0;
  // "added", "already stored" (the same key with no more cases), "updated" (the same run's file
  // grew since: an interrupted run's file is rewritten after each case).
  std::string outcome;
};

// Runs of one machine in the order they were measured (date, then insertion).
struct MachineRuns {
  std::string machine, description;
  std::vector<std::string> commits, dates, labels;
};

// One case's run-level medians on one machine: `run` indexes MachineRuns' vectors (ascending).
struct CaseSeries {
  std::size_t machine = 0;  // index into History::machines
  std::string name;         // suite/case
  std::vector<std::uint32_t> run;
  std::vector<double> median_s;  // the median of the run's repetitions' medians
};

struct History {
  std::vector<MachineRuns> machines;
  std::vector<CaseSeries> cases;
};

struct HistoryFilter {
  std::string machine;     // a prefix of the machine id or a substring of its description
  std::string case_regex;  // ECMAScript, searched in suite/case
  std::string since;       // runs dated at or after this ISO 8601 prefix ("2026-12-01")
};

struct CaseRunInterval {
  std::string machine, commit, date, label;
  double low_s = 0, high_s = 0;  // 0: the run recorded no interval for it
};

class HistoryStore {
 public:
  // Opens (creating when absent) the store at `path`. Throws std::invalid_argument, one line, for
  // a file that is not a boundbench history store (another database, not SQLite at all, a newer
  // format), std::runtime_error for SQLite failures.
  explicit HistoryStore(const std::string& path);
  ~HistoryStore();
  HistoryStore(const HistoryStore&) = delete;
  HistoryStore& operator=(const HistoryStore&) = delete;

  // Adds validated results documents (source name, document) in one transaction. `after_each`,
  // when set, is called after each run is written and before the commit (tests kill the process
  // there).
  std::vector<AddedRun> add(const std::vector<std::pair<std::string, nlohmann::json>>& runs,
                            const std::function<void(const AddedRun&)>& after_each = {});

  std::size_t run_count() const;
  // Each stored run's results document as it was added (samples included), oldest first.
  std::vector<nlohmann::json> documents(const std::string& machine = "") const;
  History history(const HistoryFilter& filter) const;
  // One case's median interval in every stored run that has it (`history show`): the widest over
  // the run's repetitions of median_ci_low_s/median_ci_high_s, keyed as the run is.
  std::vector<CaseRunInterval> case_intervals(const std::string& name) const;

 private:
  void exec(const char* sql) const;
  sqlite3* db_ = nullptr;
  std::string path_;
};

}  // namespace bb
