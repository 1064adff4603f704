// MPI's collectives between processes, on host buffers: one call (kernels/collectives.h) over a
// group of processes (kernels/mpi_world.h) with its buffers, MPI datatype and operator. bf16 and
// fp16 have no MPI datatype: they travel as 16-bit integers with a user-defined reduction (decode,
// reduce, round to nearest even). Built only with MPI.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "kernels/collectives.h"
#include "kernels/mpi_world.h"

namespace bb::kernels {

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
