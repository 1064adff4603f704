// MPI between processes: MPI_COMM_WORLD for the life of an MpiWorld, groups of its first ranks,
// and one collective (kernels/collectives.h) over a group, on host buffers. Errors come back as
// return codes (not MPI's default abort) and throw std::runtime_error naming the call. bf16 and
// fp16 have no MPI datatype: they travel as 16-bit integers with a user-defined reduction (decode,
// reduce, round to nearest even). Built only with MPI; the lockstep harness sees the world and its
// groups through its own interface (harness/lockstep_engine.h, adapted in
// suites/collectives/transport_mpi.cpp).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

#include "kernels/collectives.h"

namespace bb::kernels {

// MPI_COMM_WORLD, from MPI_Init_thread to MPI_Finalize. Calls are collective over every process
// unless they say otherwise.
class MpiWorld {
 public:
  MpiWorld(int& argc, char**& argv);
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int on_this_node() const { return node_size_; }  // processes sharing this node
  // Whether MPI let every thread call it (MPI_THREAD_MULTIPLE): the watchdog's abort, a progress
  // thread.
  bool thread_multiple() const { return thread_multiple_; }
  // "<the library version's first line>; N processes, M on this node"; not collective.
  std::string description() const;
  // True everywhere when every process passed rank 0's `text`; otherwise `differing_rank` is the
  // first process that did not.
  bool same_everywhere(const std::string& text, int& differing_rank);
  double min_over_all(double v);
  // A barrier polled with sleeps: processes with nothing to do leave the cores to the others.
  void meet();
  // Not collective: prints `message` on stderr, then MPI_Abort (where MPI lets any thread call
  // it), else exit without finalizing, which makes the launcher end the other processes.
  [[noreturn]] void abort(const std::string& message, int exit_code);

 private:
  int rank_ = 0, size_ = 1, node_size_ = 1;
  bool thread_multiple_ = false;
};

// The first `ranks` processes of the world as one communicator; on the others, no communicator
// (member() false). Calls other than member(), rank() and size() are collective over the group.
class MpiGroup {
 public:
  MpiGroup(const MpiWorld& world, int ranks);  // collective over the world
  ~MpiGroup();
  MpiGroup(const MpiGroup&) = delete;
  MpiGroup& operator=(const MpiGroup&) = delete;

  bool member() const { return comm_ != MPI_COMM_NULL; }
  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  void barrier();
  double max(double v);
  double sum(double v);
  void broadcast(void* data, int bytes, int root);

  // The training steps' communication (suites/strategies). Point to point: `send` starts a send
  // of `bytes` (the buffer must live until complete_sends()); `receive` returns once the bytes
  // have arrived; both wait polling with short sleeps, as MpiWorld::meet does, so that a stage
  // waiting for its neighbour leaves the cores to the stages that compute. Not collective.
  void send(const void* data, std::size_t bytes, int to, int tag);
  void receive(void* data, std::size_t bytes, int from, int tag);
  void complete_sends();
  // The collectives block in MPI (every rank takes part at once; a polled non-blocking collective
  // would progress only at each poll). In place: the sum over the group of every rank's `count`
  // floats (MPI_Allreduce).
  void all_reduce_sum(float* data, std::size_t count);
  // MPI_Alltoallv of floats: send_counts[r] floats (from send_offsets[r]) go to rank r,
  // recv_counts[r] floats come from rank r (to recv_offsets[r]).
  void all_to_all(const float* send, const std::vector<int>& send_counts,
                  const std::vector<int>& send_offsets, float* recv,
                  const std::vector<int>& recv_counts, const std::vector<int>& recv_offsets);
  // Non-blocking, to overlap with compute: starts the in-place sum over the group of `count`
  // floats (MPI_Iallreduce; every rank starts the same ones in the same order). MPI progresses it
  // only inside its calls: test_all_reduces() progresses every started one once (MPI_Testall) and
  // returns whether all have completed (then forgets them).
  void start_all_reduce_sum(float* data, std::size_t count);
  bool test_all_reduces();

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  std::vector<MPI_Request> sends_;        // started by send(), until complete_sends()
  std::vector<MPI_Request> all_reduces_;  // started, until they complete
};

// MPI allocates temporary buffers inside some collectives (OpenMPI's reduce_scatter from 16 MiB);
// glibc serves large ones with fresh mmaps, so every call would page-fault them anew and measure
// the kernel zeroing pages (~1.3 GB/s here). Keeps freed memory in the heap instead, as a caching
// allocator would (for the rest of the process).
void keep_freed_memory_in_heap();

// One collective of `group` with this process's buffers: an input of in_count elements and an
// output of max(in_count, out_count), both zeroed.
class MpiCollective {
 public:
  MpiCollective(const CollectiveSpec& spec, const reference::CollectiveShape& shape,
                const MpiGroup& group);
  ~MpiCollective();  // frees a user-defined operator
  MpiCollective(const MpiCollective&) = delete;
  MpiCollective& operator=(const MpiCollective&) = delete;

  void* input() { return send_.data(); }
  void* output_buffer() { return recv_.data(); }  // in place, the input starts in it
  // Where this process's result is (an out-of-place broadcast's root keeps it in the input).
  const void* output() const;
  void run();
  // Seconds per call of `iterations` back-to-back calls on this process (MPI_Wtime).
  double seconds_per_call(int iterations);

 private:
  CollectiveSpec spec_;
  reference::CollectiveShape shape_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  std::vector<std::byte> send_, recv_;
  std::vector<int> counts_;  // reduce_scatter: out_count for every rank
  MPI_Datatype type_ = MPI_FLOAT;
  MPI_Op op_ = MPI_SUM;
  bool own_op_ = false;
};

}  // namespace bb::kernels
