// One machine's run split over several results files (each a `boundbench run` of another case
// selection on the same device, as a simulated GPU's timed runs are) read as one run: its cases the
// union, its ceilings (harness/bound.h, ceilings_of) those of the union. For `project`.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace bb {

struct RunFile {
  std::string name;    // as given (a path): for the notes and the label
  nlohmann::json doc;  // load_results (harness/regression.h)
};

struct MergedRun {
  nlohmann::json doc;
  // One line per case measured in more than one file (the last one's taken), or kept from an
  // earlier file because a later one ran it without a measurement (an error).
  std::vector<std::string> notes;
};

// Throws std::invalid_argument (one line) when two files are from different machines: their
// fingerprints differ (harness/fingerprint.h, as `compare` holds them) or they measured different
// GPUs. The document: the last file's context, labelled with the names joined by " + ", with the
// last --host-peak-bw any file gave; per case, the entries of the last file that measured it (a
// rerun supersedes), else of the last that ran it; each figure from the last file that has one
// (objects merged key by key), and STREAM's best (figures.bandwidth.<backend>.stream_best) over the
// union's STREAM cases, so that a STREAM case of one file is the measured DRAM ceiling of all; no
// checks (each file's were judged on its own cases). One file: its document as it is.
MergedRun merge_runs(std::vector<RunFile> files);

}  // namespace bb
