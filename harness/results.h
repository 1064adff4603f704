// The results file: Google Benchmark's JSON layout (`context` + `benchmarks`, so that its
// compare.py reads it unchanged) extended with boundbench's context and a `checks` array. Schema:
// results/README.md. The file is rewritten atomically after every case, so a run killed at any
// point leaves a valid file holding everything measured before it.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "harness/case.h"
#include "harness/gpu.h"
#include "harness/host_info.h"
#include "harness/stats.h"

namespace bb {

// Version 2 added the verdicts INCONCLUSIVE and BELOW-EXPECTATION, check kinds and intervals, kept
// samples and robust statistics; a version-1 file is a valid version-2 file, so both are read.
inline constexpr int kResultsSchemaVersion = 2;
inline constexpr int kOldestReadableSchemaVersion = 1;

nlohmann::json to_json(const HostInfo& h);
nlohmann::json to_json(const GpuStatus& s);
nlohmann::json to_json(const Check& c);
// A case's sample statistics as every results entry carries them (min, median, mean, max,
// stddev/mean, MAD, the median's interval and its coverage, the kept samples), merged into `entry`.
void add_summary(nlohmann::json& entry, const Summary& s, std::span<const double> samples_s);

// Writes `content` to a temporary file beside `path`, flushes it to disk and renames it over
// `path`. Throws std::runtime_error naming the path on failure.
void write_file_atomically(const std::string& path, const std::string& content);

// Throws std::invalid_argument when `path` cannot be written (checked before anything is measured).
void ensure_writable(const std::string& path);

class ResultsFile {
 public:
  // Writes the file at once with no benchmarks yet and "complete": false.
  ResultsFile(std::string path, nlohmann::json context);
  // Appends one case's benchmark entries and checks, then rewrites the file (one write per case).
  void add(const std::vector<nlohmann::json>& benchmarks, const std::vector<Check>& checks);
  // Sets "figures"/<suite> and rewrites the file.
  void add_figures(const std::string& suite, nlohmann::json figures);
  // Applies `change` to the document and rewrites the file (the bounds of every case, made after
  // the last one: harness/bound.h).
  void edit(const std::function<void(nlohmann::json&)>& change);
  void finish();  // marks the run complete
  const nlohmann::json& document() const { return doc_; }

 private:
  void write() const;
  std::string path_;
  nlohmann::json doc_;
};

}  // namespace bb
