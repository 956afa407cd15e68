#include "tools/block_bench/mpi/mpi_session.h"

#include <mpi.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>

namespace blk::bench::mpi {
namespace {

constexpr int kHostLen = 256;

std::string MpiErrorString(int rc) {
  char buf[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, buf, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(rc);
  return std::string(buf, size_t(len));
}

}  // namespace

bool MpiSession::Launched() {
  // mpirun/mpiexec (Open MPI), PMIx launchers (srun --mpi=pmix), PMI-1/2.
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK") ||
         std::getenv("PMI_RANK");
}

Expected<std::unique_ptr<MpiSession>> MpiSession::Create(int* argc, char*** argv) {
  int provided = 0;
  const int rc = MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  if (rc != MPI_SUCCESS) return MakeError(-EIO, "MPI_Init_thread: " + MpiErrorString(rc));
  std::unique_ptr<MpiSession> s(new MpiSession);
  if (provided < MPI_THREAD_FUNNELED) {
    return MakeError(-ENOTSUP, "the MPI library offers no MPI_THREAD_FUNNELED (thread level " +
                                   std::to_string(provided) + ")");
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &s->rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &s->size_);
  char mine[kHostLen] = {};
  if (gethostname(mine, kHostLen - 1) != 0) std::strcpy(mine, "?");
  std::vector<char> all(size_t(kHostLen) * size_t(s->size_));
  MPI_Allgather(mine, kHostLen, MPI_CHAR, all.data(), kHostLen, MPI_CHAR, MPI_COMM_WORLD);
  for (int r = 0; r < s->size_; r++) s->hosts_.emplace_back(all.data() + size_t(r) * kHostLen);
  return s;
}

MpiSession::~MpiSession() { MPI_Finalize(); }

std::string MpiSession::who(int rank) const {
  return "rank " + std::to_string(rank) + " (" + hostname_of(rank) + ")";
}

Expected<void> MpiSession::segment_ready(size_t segment, const std::string& failure) {
  (void)segment;  // every rank calls this once per segment, in order
  // The lowest failing rank, or size_ when every rank is ready.
  const int mine = failure.empty() ? size_ : rank_;
  int first = size_;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == size_) return {};
  std::string msg = rank_ == first ? failure : std::string();
  int len = int(std::min<size_t>(msg.size(), INT_MAX));
  MPI_Bcast(&len, 1, MPI_INT, first, MPI_COMM_WORLD);
  msg.resize(size_t(len));
  MPI_Bcast(msg.data(), len, MPI_CHAR, first, MPI_COMM_WORLD);
  return MakeError(-ECANCELED, who(first) + ": " + msg);
}

void MpiSession::ramp_begin() {
  auto* req = new MPI_Request;
  MPI_Ibarrier(MPI_COMM_WORLD, req);
  ramp_request_ = req;
}

bool MpiSession::ramp_done() {
  auto* req = static_cast<MPI_Request*>(ramp_request_);
  if (!req) return true;
  int flag = 0;
  MPI_Test(req, &flag, MPI_STATUS_IGNORE);
  if (!flag) return false;
  delete req;
  ramp_request_ = nullptr;
  return true;
}

std::vector<std::string> MpiSession::gather(const std::string& bytes) {
  constexpr int kLenTag = 1, kBytesTag = 2;
  if (rank_ != 0) {
    const int len = bytes.size() > size_t(INT_MAX) ? 0 : int(bytes.size());
    MPI_Send(&len, 1, MPI_INT, 0, kLenTag, MPI_COMM_WORLD);
    MPI_Send(bytes.data(), len, MPI_BYTE, 0, kBytesTag, MPI_COMM_WORLD);
    return {};
  }
  std::vector<std::string> out(static_cast<size_t>(size_));
  out[0] = bytes;
  for (int r = 1; r < size_; r++) {
    int len = 0;
    MPI_Recv(&len, 1, MPI_INT, r, kLenTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    out[size_t(r)].resize(size_t(len));
    MPI_Recv(out[size_t(r)].data(), len, MPI_BYTE, r, kBytesTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  return out;
}

int MpiSession::max(int value) {
  int out = value;
  MPI_Allreduce(&value, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

bool MpiSession::same(uint64_t value) {
  uint64_t lo = value, hi = value;
  MPI_Allreduce(&value, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&value, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  return lo == hi;
}

}  // namespace blk::bench::mpi
