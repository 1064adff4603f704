// What the collectives suite measures: which collectives, data types, operators and placements,
// over which message sizes and rank counts, and the names of the resulting cases. Every rank
// computes the same plan from the same options.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "suites/collectives/collectives.h"
#include "suites/collectives/transport.h"

namespace bb::collectives {

// The run as every rank settled it: engine, rank counts and the largest size.
struct Setup {
  std::string transport;  // "mpi", "nccl"
  std::string engine;     // the transport's description: library version, processes, devices
  int world_ranks = 1;
  std::vector<int> rank_counts;
  double max_bytes = 0;
  std::string memory_note;  // why max_bytes is below the one asked for; empty when it is not
};

struct Planned {
  Spec spec;
  double bytes = 0;
  bool sweep = true;  // part of the size sweep (else a coverage size: verified, sampled once)
};

// The sweep (every requested collective, type, operator and placement from --min-bytes to
// `max_bytes`, growing by --step-factor), then with `coverage_here` every type, operator and
// placement at one element per rank, at an odd count and at 256 KiB. Throws
// std::invalid_argument on an unknown name.
std::vector<Planned> plan(const Options& o, int ranks, bool coverage_here, double max_bytes);

// --ranks, checked against the world; by default powers of two up to the world, and the world.
std::vector<int> rank_counts(const Options& o, int world);

// "all_reduce/fp32/sum/out-of-place/1024B/mpi-p4"
std::string case_name(const Spec& s, const std::string& transport, int ranks, std::size_t bytes);

// The options that every rank must share, as one text.
std::string canonical(const Options& o);

}  // namespace bb::collectives
