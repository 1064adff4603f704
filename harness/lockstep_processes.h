// The processes of a lockstep run (harness/lockstep_engine.h): which ones, their agreement on
// what to run, and an error on one of them ending them all with its message.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "harness/lockstep_engine.h"

namespace bb::lockstep {

// Opens MPI's world (argc and argv as MPI_Init takes them); the suite that has one supplies it.
using OpenMpiWorld = std::unique_ptr<Processes> (*)(int& argc, char**& argv);

// MPI's world when started by an MPI launcher or when `want_mpi`; otherwise this process alone.
// `open_mpi` is null when boundbench was built without MPI: then wanting MPI, or being started by
// a launcher, throws std::runtime_error saying so.
std::unique_ptr<Processes> make_processes(bool want_mpi, OpenMpiWorld open_mpi, int& argc,
                                          char**& argv);
bool launched_by_mpi();  // OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_RANK or MPI_LOCALNRANKS in the env

// True when every process was started with the same `options` (their canonical text); otherwise
// rank 0 prints "<who>: error: rank r was started with other arguments than rank 0; nothing
// measured" and every process gets false.
bool same_options_everywhere(Processes& processes, std::string_view who,
                             const std::string& options);

// Runs `body` on this process and returns its exit code. An error on some processes only would
// leave the others waiting in their next collective (and MPI_Finalize waiting for them): with more
// than one process, an exception ends every one with "<who>: error: <what> (rank r)", exit 2 for
// std::invalid_argument, else 1. Alone, the exception climbs to the caller.
int run_ending_every_rank_on_error(Processes& processes, std::string_view who,
                                   const std::function<int()>& body);

}  // namespace bb::lockstep
