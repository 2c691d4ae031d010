// sc_model.cpp - the SystemC performance model of the accelerator: fetch, load, compute, store,
// four token queues and a DRAM model behind TLM-2.0 sockets, loosely timed.
//
// The design idea: each module is a SystemC process that advances one *instruction* at a time,
// not one clock tick. For every instruction it works out, from the RTL's rules (docs/hw.md), the
// cycle it is accepted, the cycles its bursts go out and its data comes back, the cycle its
// last result is written and the cycle it pushes its tokens, then waits until that time before
// it touches anything another module can see (a token, a command queue, the memory channel).
// So every interaction happens in global time order while the work between interactions is
// plain arithmetic. The memory is a TLM-2.0 target: a module sends one blocking transport per
// instruction carrying the bursts it issues (a timing extension, no data: the data are computed
// by fsim, see sc.c), and the target reserves the shared address and data channels in order
// (latency, bytes per cycle, outstanding bursts, arbitration between simultaneous requests).
//
// One simulation kernel serves the whole process (SystemC elaborates once): the modules and
// sockets are built on first use and every run spawns the module processes anew with the
// parameters of its configuration, so any configuration runs without a rebuild.
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "sim/sc/sc_model.h"

using namespace sc_core;

// libsystemc's own main() calls sc_main; the library's users have their own main and never
// reach it, but the symbol must exist for the link.
int sc_main(int, char **) { return 1; }

namespace {

typedef uint64_t cyc;  // cycles since the run started

// Fixed latencies of the RTL's handshakes (cycles), measured against the rtl backend with the
// directed programs of tests/sim/test_sc.c (single instructions of each kind) and the read
// grants of random programs seen in the RTL's waveform (VTA_RTL_WAVE).
const cyc kStart = 4;     // ap_start to fetch's first read address (vta_burst_gen CmdReg, SameReg)
const cyc kFetchGap = 2;  // fetch's bursts at least this far apart (vta_burst_gen SameReg)
const cyc kArb = 1;       // a client's read address to the DRAM (the arbiter's register)
const cyc kGearbox = 1;   // a beat to the element a gearbox assembles from it
const cyc kRoute = 2;     // an instruction's last beat to its command queue's output
const cyc kDone = 0;      // the last module finishing to ap_done
const cyc kStoreData = 4; // a STORE accepted to its first data beat (OUT read, its output
                          // register, FIFO, gearbox)

// ---- the memory model's transaction: bursts and their timing ----

struct Burst {
  uint64_t addr;
  uint32_t beats;
  cyc first;       // reads, out: the cycle of the first beat; writes, in: the cycle the first
                   // data beat is ready, out: the cycle of the response
  cyc last_ready;  // writes, in: the cycle the last data beat is ready
  cyc slot;        // out: the cycle the address was accepted
  cyc last;        // writes, out: the cycle of the last data beat
  bool hold = false;  // presented a cycle after it is loaded (vta_burst_gen SameLast)
};

struct Timing : tlm::tlm_extension<Timing> {
  int client = 0;       // 0 fetch, 1 load, 2 compute, 3 store
  cyc t_addr = 0;       // the cycle the client presents its first address (one per cycle)
  Burst *bursts = nullptr;
  size_t n = 0;
  double interval = 1;  // out: cycles between beats
  cyc last_addr = 0;    // out: the cycle after the arbiter took the last burst (reads)
  uint32_t req = 0;     // out (reads): the request's number, for final_times
  tlm::tlm_extension_base *clone() const override { return new Timing(*this); }
  void copy_from(const tlm::tlm_extension_base &e) override {
    *this = static_cast<const Timing &>(e);
  }
};

// Bursts of a 2-D transfer the way vta_burst_gen cuts them: aligned beats per row, at most
// max_beats, never across 4 KiB. same_last: the store, and the load and compute DMAs on a bus
// of 128 bits or more (vta_burst_gen SameReg with SameLast), where a burst that does not end
// its row is presented a cycle after it is loaded (its successor, the same row's next burst,
// is registered).
void cut_bursts(uint64_t base, uint64_t stride, uint64_t row_bytes, uint64_t rows,
                uint32_t bus, uint32_t max_beats, std::vector<Burst> &out,
                bool same_last = false) {
  out.clear();
  for (uint64_t r = 0; r < rows; r++) {
    uint64_t a = base + r * stride;
    uint64_t cur = a & ~uint64_t(bus - 1);
    uint64_t end = a + row_bytes;
    while (cur < end) {
      uint64_t beats = (end - cur + bus - 1) / bus;
      uint64_t to4k = (4096 - (cur & 4095)) / bus;
      if (beats > max_beats) beats = max_beats;
      if (beats > to4k) beats = to4k;
      out.push_back({cur, uint32_t(beats), 0, 0, 0, 0, same_last && cur + beats * bus < end});
      cur += beats * bus;
    }
  }
}

struct Ctx;

// ---- DRAM: a TLM-2.0 target reserving the shared channels in time order ----
struct Dram : sc_module {
  tlm_utils::multi_passthrough_target_socket<Dram> sock;
  Ctx *ctx = nullptr;
  // A read burst: its address slot and its beats on the in-order data channel. Slots at or
  // after the cycle a new request could reach are provisional: every request re-runs the
  // arbiter over them (see arbitrate), and a client reads its bursts' final times once the
  // simulation has reached its last slot (final_times).
  struct Res {
    cyc slot, start, end;
    int client;
    uint32_t req, k, beats;  // the client's request number, the burst's index in it, beats
    cyc base;                // the first slot the request could have (its address + kArb)
    bool settled;            // its beats' times are final: its client's gearbox has taken them
                             // (fetch takes every beat as it comes)
    cyc pick;                // the cycle the arbiter took it into its address register
    bool hold;               // presented a cycle later (Burst::hold)
  };
  std::vector<Res> hist;  // by slot (= data order: the DRAM serves reads in order)
  size_t settled_upto = 0;  // hist[0, settled_upto) are all settled
  sc_event ev_settled;
  std::vector<Res> pend;            // scratch of arbitrate
  std::vector<size_t> order[3];     // scratch of arbitrate
  uint32_t req_id[4] = {0, 0, 0, 0};
  cyc aw_free = 0, w_free = 0;
  static int prio(int client) { return client == 0 ? 0 : (client == 2 ? 1 : 2); }
  void arbitrate(struct Timing *t);
  bool final_times(struct Timing *t);
  // The index of a client's burst in hist (each is there once). A client walks its bursts in
  // order, so the search starts at the one it found last and goes forward a little before it
  // falls back to scanning everything (hist moves when old bursts are dropped or re-picked).
  size_t hint[4] = {0, 0, 0, 0};
  size_t find(int client, uint32_t req, uint32_t k) {
    const size_t n = hist.size();
    for (size_t q = hint[client], end = std::min(n, hint[client] + 32); q < end; q++)
      if (hist[q].client == client && hist[q].req == req && hist[q].k == k) return hint[client] = q;
    for (size_t q = n; q-- > 0;)
      if (hist[q].client == client && hist[q].req == req && hist[q].k == k) return hint[client] = q;
    return size_t(-1);
  }
  // Every burst before hist[idx] on the data channel is settled.
  bool preds_settled(size_t idx) {
    while (settled_upto < hist.size() && hist[settled_upto].settled) settled_upto++;
    return settled_upto >= idx;
  }
  // hist[idx]'s last beat was taken in cycle end - 1 (later than its nominal end when its
  // client's gearbox held beats): every beat behind it on the in-order channel moves back.
  void settle(size_t idx, cyc end) {
    if (end > hist[idx].end) {
      hist[idx].end = end;
      for (size_t r = idx + 1; r < hist.size(); r++) {
        if (hist[r].start >= hist[r - 1].end) break;
        cyc e = hist[r - 1].end - hist[r].start;
        hist[r].start += e;
        hist[r].end += e;
      }
    }
    hist[idx].settled = true;
    ev_settled.notify();
  }
  SC_HAS_PROCESS(Dram);
  explicit Dram(sc_module_name nm) : sc_module(nm), sock("sock") {
    sock.register_b_transport(this, &Dram::b_transport);
  }
  void reset() {
    hist.clear();
    settled_upto = 0;
    std::fill(std::begin(req_id), std::end(req_id), 0);
    std::fill(std::begin(hint), std::end(hint), 0);
    aw_free = w_free = 0;
  }
  void b_transport(int id, tlm::tlm_generic_payload &p, sc_time &delay);
};

struct Tok {  // a token queue: a counting semaphore, push times kept in order
  std::vector<cyc> pushes;
  size_t pops = 0;
  sc_event ev;
};

struct CmdQ {  // a command queue between fetch and a module
  std::vector<uint32_t> idx;   // instruction indices routed here
  std::vector<cyc> avail;      // the cycle each is at the queue's output
  std::vector<cyc> taken;      // the cycle the module took it
  sc_event ev_routed, ev_taken;
};

struct Counters {
  cyc busy_until = 0;
  uint64_t busy = 0, stall = 0, insns = 0;
  // Adds [a, b] (inclusive); returns the stretch [*from, *to) not counted before.
  void busy_span(cyc a, cyc b, cyc *from, cyc *to) {
    *from = *to = 0;
    if (b < a) return;
    if (a < busy_until) a = busy_until;
    if (b + 1 > a) {
      busy += b + 1 - a;
      *from = a;
      *to = b + 1;
    }
    if (b + 1 > busy_until) busy_until = b + 1;
  }
};

// One footprint record of the micro-op buffer (hw/rtl/vta_uop_fp.sv).
struct Rec {
  bool valid = false;
  uint64_t lo = 0, hi = 0, dmin = 0, dmax = 0, smin = 0, smax = 0;
};

}  // namespace

struct vta_sc_state {
  vta_config cfg;
  std::vector<uint32_t> uop;  // the micro-op buffer (encoded words)
  Rec rec[32];
  unsigned rec_ptr = 0;
};

namespace {

struct Ctx {
  const vta_sc_job *job = nullptr;
  const vta_config *cfg = nullptr;
  const vta_sc_params *par = nullptr;
  vta_sc_state *st = nullptr;
  sc_time t0;
  bool abort = false;
  bool trace = false;  // VTA_SC_TRACE: every instruction's cycles on stderr
  uint64_t events = 0;
  CmdQ q[3];
  Tok tok[VTA_Q_COUNT];
  Counters cnt[3];
  cyc end_load = 0, end_compute = 0, end_store = 0, end_fetch = 0;
  bool done[4] = {false, false, false, false};
  uint32_t nmod[3] = {0, 0, 0};
  uint64_t dual = 0;
  Dram *dram = nullptr;
};

inline cyc now(const Ctx &c) {
  return cyc((sc_time_stamp() - c.t0).value() / sc_time(1, SC_NS).value());
}
inline void sync(Ctx &c, cyc t) {
  cyc n = now(c);
  if (t > n) wait(sc_time(double(t - n), SC_NS));
  c.events++;
}
inline void wait_ev(Ctx &c, sc_event &e) {
  wait(e);
  c.events++;
}

// The timeline's records (sc.c writes them; nothing is recorded without a timeline).
inline void busy(Ctx &c, int m, uint32_t insn, cyc a, cyc b) {
  cyc from, to;
  c.cnt[m].busy_span(a, b, &from, &to);
  const vta_sc_recorder *r = c.job->rec;
  if (r && r->busy && to > from) r->busy(r->ctx, m, insn, from, to);
}
inline void count(Ctx &c, int k, cyc at, int64_t delta) {
  const vta_sc_recorder *r = c.job->rec;
  if (r && r->counter) r->counter(r->ctx, k, at, delta);
}

// The read address arbiter (hw/rtl/vta_axi_rd_arb.sv) over the bursts not granted yet. A client
// presents its bursts one at a time (vta_burst_gen: the next one the cycle after the previous
// was taken), the arbiter takes one a cycle, round-robin from the client after the last one
// granted (or fixed priority fetch > compute > load), and the DRAM serves them in that order,
// the first beat read_latency cycles after the slot, behind the beats of the burst before.
// A new request can only change slots from its own first one on, so those are taken back and
// handed out again, cycle by cycle, with the new request's bursts among them: the same grants
// the RTL makes, whatever order the requests of one cycle reached the model in.
void Dram::arbitrate(Timing *t) {
  const vta_sc_params &par = *ctx->par;
  cyc now_c = now(*ctx);
  // Forget bursts long over, in batches so that the vector is not moved every call.
  if (hist.size() > 1024) {
    size_t drop = 0;
    while (drop + 256 < hist.size() && hist[drop].end + 4096 < now_c) drop++;
    if (drop >= 512) {
      hist.erase(hist.begin(), hist.begin() + drop);
      settled_upto = settled_upto > drop ? settled_upto - drop : 0;
    }
  }
  // A request stamped in the past (fetch asks with the cycle its credit allowed) cannot take
  // back slots other clients already hold as final.
  cyc t0 = std::max(t->t_addr, now_c) + kArb;
  // The arbiter picks a burst into its address register (one entry, refilled in the cycle it
  // empties) among the clients presenting one in that cycle; the DRAM accepts it from the
  // register when it has room (fewer than `outstanding` bursts with beats still to come). So
  // a request presented in cycle t0 - 1 can only change the picks from that cycle on: a burst
  // picked earlier keeps its slot even if the DRAM takes it later.
  size_t pos = std::lower_bound(hist.begin(), hist.end(), t0 - 1,
                                [](const Res &r, cyc v) { return r.pick < v; }) -
               hist.begin();
  cyc reg_free = pos ? hist[pos - 1].slot : 0;  // the register refills when it empties
  pend.assign(hist.begin() + pos, hist.end());
  hist.resize(pos);
  settled_upto = std::min(settled_upto, pos);
  for (size_t k = 0; k < t->n; k++)
    pend.push_back({0, 0, 0, t->client, t->req, uint32_t(k), t->bursts[k].beats, t0,
                    t->client == 0, 0, t->bursts[k].hold});
  // Per client, its waiting bursts in order (taken back ones first: they were asked earlier).
  size_t head[3] = {0, 0, 0};
  for (int c = 0; c < 3; c++) order[c].clear();
  for (size_t q = 0; q < pend.size(); q++) order[pend[q].client].push_back(q);
  cyc granted[3] = {0, 0, 0};
  bool any_granted[3] = {false, false, false};
  int last = hist.empty() ? 0 : hist.back().client;
  double bus = ctx->cfg->bus_bytes;
  double iv = (par.bytes_per_cycle && par.bytes_per_cycle < bus) ? bus / par.bytes_per_cycle : 1.0;
  size_t left = pend.size();
  cyc p = reg_free;  // the next cycle the arbiter may pick in
  while (left) {
    // A client presents its next burst the cycle after the arbiter took the one before
    // (vta_burst_gen); a burst is there to be picked from the cycle before its base slot.
    int pick = -1;
    cyc soonest = ~cyc(0);
    for (int k = 1; k <= 3; k++) {
      int c = par.arbitration == 1 ? (k == 1 ? 0 : k == 2 ? 2 : 1) : (last + k) % 3;
      if (head[c] == order[c].size()) continue;
      const Res &r = pend[order[c][head[c]]];
      cyc ready = (any_granted[c] ? std::max(r.base - 1, granted[c] + 1) : r.base - 1) +
                  (r.hold ? 1 : 0);
      if (ready <= p && pick < 0) pick = c;
      soonest = std::min(soonest, ready);
    }
    if (pick < 0) {
      p = soonest;
      continue;
    }
    Res r = pend[order[pick][head[pick]++]];
    cyc s = p + 1;
    // At most `outstanding` bursts whose beats are not all delivered: the DRAM takes the
    // register's burst the cycle after the last beat of the one `outstanding` before it.
    if (par.outstanding && hist.size() >= par.outstanding) {
      cyc e = hist[hist.size() - par.outstanding].end;
      if (e > s) s = e;
    }
    cyc prev_end = hist.empty() ? 0 : hist.back().end;
    r.pick = p;
    r.slot = s;
    r.start = std::max(s + par.read_latency + 1, prev_end);
    r.end = r.start + cyc(r.beats * iv + 0.999);
    hist.push_back(r);
    granted[pick] = p;
    any_granted[pick] = true;
    last = pick;
    left--;
    p = s;
  }
  t->interval = iv;
  final_times(t);
}

// The current times of request t->req's bursts; true when they are final (the simulation has
// passed the cycle the arbiter took the last one, so no later request can move them).
bool Dram::final_times(Timing *t) {
  size_t found = 0;
  cyc last = 0;
  for (size_t q = hist.size(); q-- > 0 && found < t->n;) {
    const Res &r = hist[q];
    if (r.client != t->client || r.req != t->req) continue;
    t->bursts[r.k].first = r.start;
    t->bursts[r.k].slot = r.slot;
    last = std::max(last, r.pick + 1);  // the client sees its burst taken at the pick
    found++;
  }
  t->last_addr = last;
  if (ctx->trace)
    for (size_t k = 0; k < t->n; k++)
      fprintf(stderr, "sc dram client %d request %u burst %zu/%zu of %u beats: slot %" PRIu64
                      " first beat %" PRIu64 " (last taken %" PRIu64 ")\n",
              t->client, t->req, k, t->n, t->bursts[k].beats, t->bursts[k].slot,
              t->bursts[k].first, last);
  return last <= now(*ctx);
}

void Dram::b_transport(int id, tlm::tlm_generic_payload &p, sc_time &delay) {
  Timing *t = nullptr;
  p.get_extension(t);
  if (!t || !ctx) {
    p.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  t->client = id;  // the socket's binding order: fetch 0, load 1, compute 2, store 3
  const vta_sc_params &par = *ctx->par;
  double bus = ctx->cfg->bus_bytes;
  double iv = (par.bytes_per_cycle && par.bytes_per_cycle < bus) ? bus / par.bytes_per_cycle : 1.0;
  t->interval = iv;
  if (p.get_command() == tlm::TLM_READ_COMMAND || t->client < 3) {
    t->req = ++req_id[t->client & 3];
    arbitrate(t);
  } else {
    // Writes: the address goes out ahead of the data; beats go one per cycle (or as the
    // bandwidth allows) once both the address and the data are there; the response comes
    // write_latency cycles after the last beat.
    for (size_t k = 0; k < t->n; k++) {
      Burst &b = t->bursts[k];
      cyc at = std::max(t->t_addr + k, aw_free) + (b.hold ? 1 : 0);
      aw_free = at + 1;
      cyc start = std::max(std::max(at + 1, b.first), w_free);
      cyc last = std::max(start + cyc((b.beats - 1) * iv + 0.999), b.last_ready);
      w_free = last + 1;
      b.last = last;
      b.first = last + par.write_latency + 1;
      b.slot = at;
      t->last_addr = at;
    }
  }
  delay = SC_ZERO_TIME;
  p.set_response_status(tlm::TLM_OK_RESPONSE);
}

// ---- the 2-D DMA of the load and compute modules (vta_load_2d) ----

// Sends the read bursts of a LOAD accepted in cycle `accept` and walks its write sequencer,
// which takes the instruction no earlier than `writer_free` and writes one buffer entry per
// cycle: a zero for padding, or the next element once the gearbox has it. Returns the cycle of
// the done pulse (the cycle after the last write); *wait gets the cycles the sequencer waited
// for data, *take the cycle it took the instruction, *last_addr the cycle of its last address.
// A LOAD's read request: its bursts as granted (final), for the data side.
struct ReadReq {
  bool data = false;
  uint32_t req = 0;
  std::vector<Burst> bursts;
  double iv = 1;
  cyc last_addr = 0;
};

struct DmaOut {
  cyc done = 0, take = 0, last_addr = 0;
  uint64_t wait = 0;
};

struct Mod : sc_module {
  tlm_utils::simple_initiator_socket<Mod> sock;
  Ctx *ctx = nullptr;
  std::vector<Burst> bursts;
  std::vector<cyc> firsts;          // scratch of walk
  cyc gb_take[VTA_MEM_COUNT] = {};  // the cycle each gearbox's last element was taken
  cyc beat_last = 0;                // the cycle this client's last read beat was taken
  tlm::tlm_generic_payload pay;
  Timing tim;
  const int client;  // the DRAM's name for this module (its socket's binding order)
  sc_event go;       // a run starts
  SC_HAS_PROCESS(Mod);
  // The module's process lives as long as the kernel: it runs one stream per `go` (spawning
  // processes per run would allocate their stacks every run).
  void main_loop() {
    for (;;) {
      wait(go);
      body();
    }
  }
  virtual void body() = 0;
  Mod(sc_module_name nm, int id) : sc_module(nm), sock("sock"), client(id) {
    SC_THREAD(main_loop);
    pay.set_extension(&tim);
  }
  ~Mod() override { pay.clear_extension(&tim); }
  // One transaction: the bursts of one instruction (reads) or of one STORE (writes).
  void transport(bool write, cyc t_addr) {
    sync(*ctx, t_addr);
    if (ctx->abort) {  // the run is being abandoned: nothing more reaches the DRAM
      for (Burst &b : bursts) b.first = t_addr;
      return;
    }
    tim.t_addr = t_addr;
    tim.bursts = bursts.data();
    tim.n = bursts.size();
    pay.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    pay.set_address(bursts.empty() ? 0 : bursts[0].addr);
    pay.set_data_ptr(nullptr);  // timing only: fsim moves the data
    pay.set_data_length(0);
    pay.set_streaming_width(0);
    pay.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_time d = SC_ZERO_TIME;
    sock->b_transport(pay, d);
    // Reads: the grants are final once the simulation reaches the last one (a request of
    // another client in the meantime may move them, as the RTL's arbiter would).
    while (!write && tim.n && tim.last_addr > now(*ctx)) {
      sync(*ctx, tim.last_addr);
      if (ctx->abort) return;
      ctx->dram->final_times(&tim);
    }
    if (ctx->job->rec) {  // bytes in flight: from the address to the last beat or the response
      const uint32_t bus = ctx->cfg->bus_bytes;
      for (const Burst &b : bursts) {
        int64_t bytes = int64_t(b.beats) * bus;
        cyc end = write ? b.first : b.first + cyc(b.beats * tim.interval + 0.999);
        count(*ctx, write ? VTA_SC_CTR_WR_BYTES : VTA_SC_CTR_RD_BYTES, b.slot, bytes);
        count(*ctx, write ? VTA_SC_CTR_WR_BYTES : VTA_SC_CTR_RD_BYTES, end, -bytes);
      }
    }
  }

  // The first beat of burst k of read request r, once every burst ahead of it on the data
  // channel is settled (their clients' gearboxes may hold beats, which moves it back).
  cyc burst_first(uint32_t req, size_t k, cyc granted) {
    Dram &d = *ctx->dram;
    size_t idx = d.find(client, req, uint32_t(k));
    if (idx == size_t(-1)) return granted;  // not kept (cannot happen)
    while (!d.preds_settled(idx)) {
      wait_ev(*ctx, d.ev_settled);
      if (ctx->abort) return granted;
      idx = d.find(client, req, uint32_t(k));
    }
    return d.hist[idx].start;
  }
  // Burst k of request req had its last beat taken in cycle last.
  void burst_done(uint32_t req, size_t k, cyc last) {
    Dram &d = *ctx->dram;
    size_t idx = d.find(client, req, uint32_t(k));
    if (idx != size_t(-1)) d.settle(idx, last + 1);
  }

  // The address side of a LOAD accepted in cycle `accept`: its bursts go out the next cycle.
  // first: the cycles from the acceptance to the first address (vta_burst_gen: 1, or 2 with
  // CmdReg, the load and compute modules' loads; the store's writes go out with CmdReg too).
  void issue_reads(const vta_sc_insn &in, cyc accept, ReadReq &r, cyc first = 1) {
    const vta_config &cfg = *ctx->cfg;
    uint32_t eb = cfg.elem_bytes[in.mem_type];
    uint64_t yt = uint64_t(in.y_pad_0) + in.y_size + in.y_pad_1;
    r.data = false;
    r.last_addr = accept;
    r.iv = 1;
    if (in.x_size == 0 || yt == 0 || in.y_size == 0) return;
    cut_bursts(uint64_t(in.dram_base) * eb, uint64_t(in.x_stride) * eb,
               uint64_t(in.x_size) * eb, in.y_size, cfg.bus_bytes, 16, bursts,
               cfg.bus_bytes >= 16);
    transport(false, accept + first);
    r.data = true;
    r.req = tim.req;
    r.bursts.assign(bursts.begin(), bursts.end());
    r.iv = tim.interval;
    r.last_addr = tim.last_addr;
  }

  DmaOut dma(const vta_sc_insn &in, cyc accept, cyc writer_free, cyc first = 1) {
    issue_reads(in, accept, rr, first);
    if (ctx->abort) return DmaOut();
    return walk(in, accept, writer_free, rr);
  }
  ReadReq rr;

  // The data side of the 2-D DMA (see above) for a LOAD whose reads r went out.
  DmaOut walk(const vta_sc_insn &in, cyc accept, cyc writer_free, const ReadReq &rq) {
    DmaOut o;
    const vta_config &cfg = *ctx->cfg;
    uint32_t eb = cfg.elem_bytes[in.mem_type];
    uint32_t bus = cfg.bus_bytes;
    uint64_t xt = uint64_t(in.x_pad_0) + in.x_size + in.x_pad_1;
    uint64_t yt = uint64_t(in.y_pad_0) + in.y_size + in.y_pad_1;
    o.take = std::max(accept + 1, writer_free);
    o.last_addr = rq.last_addr;
    if (in.x_size == 0 || yt == 0) {
      o.done = o.take + 1;
      return o;
    }
    const bool data = rq.data;
    const std::vector<Burst> &bursts = rq.bursts;
    std::vector<cyc> &first = firsts;
    first.assign(bursts.size(), 0);
    double iv = rq.iv;
    cyc t = o.take + 1;  // the first write
    uint64_t pad_rows = uint64_t(in.y_pad_0) * xt;
    t += pad_rows;
    // The gearbox (vta_rd_gearbox) holds one element (wide elements) or one beat (narrow
    // ones): the beat that starts the next one enters only in the cycle the element before it
    // is taken. A beat held back holds every beat behind it on the in-order data channel.
    cyc &gb = gb_take[in.mem_type];
    const bool wide = eb >= bus;
    size_t b = 0;  // burst index
    for (uint64_t r = 0; data && r < in.y_size; r++) {
      t += in.x_pad_0;
      uint64_t a = (uint64_t(in.dram_base) + r * in.x_stride) * eb;
      uint64_t off = a & (bus - 1);
      uint64_t row_beats = (off + uint64_t(in.x_size) * eb + bus - 1) / bus;
      size_t kb = b;        // burst of the next beat to enter
      uint64_t kbeat = 0;   // its beat within that burst
      uint64_t next = 0;    // row-relative index of the next beat to enter
      uint64_t covered = 0;
      while (covered < row_beats && b < bursts.size()) covered += bursts[b++].beats;
      for (uint64_t e = 0; e < in.x_size; e++) {
        uint64_t first_b = (off + e * eb) / bus, last_b = (off + (e + 1) * eb - 1) / bus;
        while (next <= last_b) {
          if (kbeat == 0) {
            first[kb] = burst_first(rq.req, kb, bursts[kb].first);
            if (ctx->abort) return o;
          }
          cyc nominal = first[kb] + cyc(kbeat * iv);
          cyc entry = std::max(nominal, beat_last + 1);
          if (next == first_b || !wide) entry = std::max(entry, gb);
          beat_last = entry;
          next++;
          kbeat++;
          // The rest of a wide element within this burst, at a beat a cycle: nothing holds
          // them, so each comes the cycle after the one before (the model's speed: ResNet-18
          // reads millions of beats).
          if (wide && iv == 1.0 && next <= last_b && kbeat < bursts[kb].beats) {
            uint64_t m = std::min<uint64_t>(last_b + 1 - next, bursts[kb].beats - kbeat);
            beat_last += m;
            next += m;
            kbeat += uint32_t(m);
          }
          if (kbeat == bursts[kb].beats) {
            burst_done(rq.req, kb, beat_last);
            kb++;
            kbeat = 0;
          }
        }
        cyc ready = beat_last + kGearbox;
        if (ready > t) {
          o.wait += ready - t;
          t = ready;
        }
        gb = t;
        t++;
      }
      t += in.x_pad_1;
    }
    t += uint64_t(in.y_pad_1) * xt;
    if (!data) t += uint64_t(in.y_size) * xt;
    o.done = t;  // t - 1 was the last write
    return o;
  }
};

// Waits for entry k of a command queue; returns its instruction index.
// Every wait of a module is followed by a look at c.abort: a run that timed out or deadlocked
// is abandoned by waking every process, which then returns to wait for the next run (no
// exception crosses a SystemC coroutine's stack).
uint32_t q_get(Ctx &c, CmdQ &q, size_t k) {
  while (q.idx.size() <= k) {
    if (c.abort) return 0;
    wait_ev(c, q.ev_routed);
  }
  return q.idx[k];
}
// The cycle from which a token popped now (the pops-th) is available.
cyc tok_get(Ctx &c, Tok &t) {
  while (t.pushes.size() <= t.pops) {
    if (c.abort) return 0;
    wait_ev(c, t.ev);
  }
  return t.pushes[t.pops] + 1;
}
// A push becomes visible the cycle after it; a pop takes the token in the cycle `at`.
void tok_push(Ctx &c, int q, cyc when) {
  Tok &t = c.tok[q];
  t.pushes.push_back(when);
  t.ev.notify();
  count(c, VTA_SC_CTR_TOKENS + q, when + 1, 1);
}
void tok_pop(Ctx &c, int q, cyc at) {
  c.tok[q].pops++;
  count(c, VTA_SC_CTR_TOKENS + q, at, -1);
}

// ---- fetch (vta_fetch): bursts into a 64-instruction buffer, one instruction routed a cycle ----
struct Fetch : Mod {
  explicit Fetch(sc_module_name nm) : Mod(nm, 0) {}
  void body() override {
    Ctx &c = *ctx;
    const vta_sc_job &j = *c.job;
    const uint32_t bus = c.cfg->bus_bytes, n = j.count;
    const uint32_t per_beat = bus > VTA_INSN_BYTES ? bus / VTA_INSN_BYTES : 1;
    const uint32_t max_beats = 32 / per_beat > 0 ? 32 / per_beat : 1;
    std::vector<Burst> all;
    cut_bursts(j.insn_phys, 0, uint64_t(n) * VTA_INSN_BYTES, 1, bus, max_beats, all);
    const uint64_t off = j.insn_phys & (bus - 1);
    std::vector<cyc> arr(n, ~cyc(0)), route(n, 0);
    std::vector<uint64_t> burst_beat0(all.size() + 1, 0);
    for (size_t b = 0; b < all.size(); b++) burst_beat0[b + 1] = burst_beat0[b] + all[b].beats;
    double iv = 1;
    size_t nb = 0;        // bursts issued
    uint32_t nreq = 0;    // instructions whose last byte has been requested
    cyc last_issue = kStart - kFetchGap;  // (so the first burst may go at kStart)
    // Credit of vta_fetch for burst nb at cycle t, a register worked out in cycle t - 1:
    // instructions in the buffer (with the one pushed in t - 1) plus beats in flight then,
    // with room for the burst's beats.
    auto credit_ok = [&](cyc t, uint32_t i) {
      // Arrivals and routes are both in order: count them by binary search.
      uint64_t inflight = 0;
      uint32_t lo = i > 128 ? i - 128 : 0;
      uint64_t arrived = std::lower_bound(arr.begin() + lo, arr.begin() + nreq, t) -
                         (arr.begin() + lo);
      uint64_t routed = std::lower_bound(route.begin() + lo, route.begin() + i, t - 1) -
                        (route.begin() + lo);
      uint64_t buffered = arrived - routed;
      for (size_t b = nb > 8 ? nb - 8 : 0; b < nb; b++) {
        const Burst &x = all[b];
        // A beat taken in cycle b leaves the count in b + 2 (vta_fetch's r_fire_q, then the
        // room register).
        uint64_t got =
            t <= x.first + 2 ? 0 : std::min<uint64_t>(x.beats, (t - 3 - x.first) / iv + 1);
        inflight += x.beats - got;
      }
      return buffered + (inflight + all[nb].beats + 1) * per_beat <= 64;
    };
    auto issue = [&](cyc t) {
      bursts.assign(1, all[nb]);
      transport(false, t);
      iv = tim.interval;
      all[nb].first = burst_first(tim.req, 0, bursts[0].first);
      if (c.abort) return;
      last_issue = tim.last_addr > t ? tim.last_addr : t;
      uint64_t end_beat = burst_beat0[nb + 1];
      nb++;
      while (nreq < n) {
        uint64_t lb = (off + uint64_t(nreq + 1) * VTA_INSN_BYTES - 1) / bus;
        if (lb >= end_beat) break;
        size_t k = nb - 1;
        while (lb < burst_beat0[k]) k--;
        arr[nreq] = all[k].first + cyc((lb - burst_beat0[k]) * iv) + kGearbox;
        nreq++;
      }
    };
    // Earliest cycle >= t0 at which the credit allows burst nb, given the routes known so
    // far (instructions from i on are still in the buffer); ~0 when only routing i frees it.
    auto earliest = [&](cyc t0, uint32_t i) -> cyc {
      if (credit_ok(t0, i)) return t0;
      cyc hi = t0;
      for (size_t b = nb > 8 ? nb - 8 : 0; b < nb; b++)
        hi = std::max(hi, all[b].first + cyc(all[b].beats * iv) + 3);
      for (uint32_t q = i > 64 ? i - 64 : 0; q < i; q++) hi = std::max(hi, route[q] + 2);
      if (!credit_ok(hi, i)) return ~cyc(0);
      cyc lo = t0;  // credit fails at lo, holds at hi (it only grows as time passes)
      while (hi - lo > 1) {
        cyc mid = lo + (hi - lo) / 2;
        if (credit_ok(mid, i))
          hi = mid;
        else
          lo = mid;
      }
      return hi;
    };
    cyc prev_route = 0;
    for (uint32_t i = 0; i < n; i++) {
      for (;;) {
        if (nb >= all.size()) break;
        cyc tb = earliest(last_issue + kFetchGap, i);
        if (tb == ~cyc(0)) break;
        if (i < nreq && tb >= std::max(prev_route + 1, arr[i] + 1)) break;
        issue(tb);
        if (c.abort) return;
      }
      if (i >= nreq) {  // cannot happen: routing i-1 always frees the credit for i's burst
        issue(std::max(last_issue + kFetchGap, prev_route + 1));
      }
      const vta_sc_insn &in = j.insns[i];
      CmdQ &q = c.q[in.module];
      cyc r = std::max(prev_route + 1, arr[i] + 1);
      size_t pos = q.idx.size();
      if (pos >= 512) {  // the command queue is full until its module takes entry pos-512
        while (q.taken.size() <= pos - 512 && !c.abort) wait_ev(c, q.ev_taken);
        if (c.abort) return;
        r = std::max(r, q.taken[pos - 512] + 1);
      }
      route[i] = r;
      prev_route = r;
      q.idx.push_back(i);
      q.avail.push_back(r + kRoute - 1);
      count(c, VTA_SC_CTR_QUEUE + in.module, r + kRoute - 1, 1);
      if (j.rec && j.rec->route) j.rec->route(j.rec->ctx, i, r);
      q.ev_routed.notify();
    }
    c.end_fetch = prev_route;
    c.done[3] = true;
  }
};

// ---- load (vta_load): LOADs of INP and WGT, load_ahead accepted beyond the one written ----
// Two processes, as the RTL's two halves run side by side: the address side accepts LOADs (up
// to load_ahead beyond the one being written) and sends their bursts; the write sequencer walks
// each one's beats and writes, so a write held by the data channel never holds the next
// instruction's addresses back.
struct Load : Mod {
  struct Job {
    uint32_t i = 0;
    cyc accept = 0, ready = 0;  // accepted; could have been without the token
    ReadReq rq;
  };
  std::vector<Job> jobs;     // ring of load_ahead + 2, by instruction order
  size_t issued = 0;         // jobs handed to the write sequencer
  std::vector<cyc> takes;    // the cycle the write sequencer took each instruction
  sc_event ev_job, ev_take;
  SC_HAS_PROCESS(Load);
  explicit Load(sc_module_name nm) : Mod(nm, 1) { SC_THREAD(writer_loop); }
  void reset() {
    issued = 0;
    takes.clear();
  }
  void writer_loop() {
    for (;;) {
      wait(go);
      writer();
    }
  }
  void body() override {
    Ctx &c = *ctx;
    CmdQ &q = c.q[VTA_MOD_LOAD];
    const uint32_t depth = c.par->load_ahead ? c.par->load_ahead : 1;
    if (jobs.size() != depth + 2) jobs.resize(depth + 2);
    // vta_burst_gen's cmd_ready is !active: the module accepts its next LOAD in the cycle after
    // the arbiter took the previous one's last burst (its Timing::last_addr), or the cycle after
    // the previous acceptance when that one sent no burst.
    cyc next_accept = 0;
    for (size_t e = 0; e < c.nmod[VTA_MOD_LOAD]; e++) {
      uint32_t i = q_get(c, q, e);
      if (c.abort) return;
      const vta_sc_insn &in = c.job->insns[i];
      cyc t = std::max(q.avail[e], next_accept);
      // vta_fifo's in_ready is registered: a full queue takes again the cycle after a pop.
      if (e >= depth) {
        while (takes.size() <= e - depth && !c.abort) wait_ev(c, ev_take);
        if (c.abort) return;
        t = std::max(t, takes[e - depth] + 1);
      }
      cyc ready = t;
      if (in.pop_next) {
        cyc tk = tok_get(c, c.tok[VTA_Q_COMPUTE_TO_LOAD]);
        if (c.abort) return;
        t = std::max(t, tk);
        tok_pop(c, VTA_Q_COMPUTE_TO_LOAD, t);
      }
      sync(c, t);
      if (c.abort) return;
      q.taken.push_back(t);
      q.ev_taken.notify();
      count(c, VTA_SC_CTR_QUEUE + in.module, t, -1);
      Job &jb = jobs[e % jobs.size()];
      jb.i = i;
      jb.accept = t;
      jb.ready = ready;
      issue_reads(in, t, jb.rq, 2);  // (vta_burst_gen with CmdReg)
      if (c.abort) return;
      next_accept = jb.rq.data ? jb.rq.last_addr : t + 1;
      issued = e + 1;
      ev_job.notify();
    }
  }
  void writer() {
    Ctx &c = *ctx;
    Counters &k = c.cnt[VTA_MOD_LOAD];
    cyc prev_done = 0;
    for (size_t e = 0; e < c.nmod[VTA_MOD_LOAD]; e++) {
      while (issued <= e && !c.abort) wait_ev(c, ev_job);
      if (c.abort) return;
      const Job &jb = jobs[e % jobs.size()];
      const uint32_t i = jb.i;
      const vta_sc_insn &in = c.job->insns[i];
      // Cycles the instruction waited for its token while the module had nothing to do.
      cyc idle_from = std::max(jb.ready, k.busy_until);
      if (jb.accept > idle_from) k.stall += jb.accept - idle_from;
      // The sequencer takes the instruction (and frees its queue entry for the address side)
      // before it walks the beats: walk() may return long after, once the data channel ahead
      // of its bursts has settled.
      takes.push_back(std::max(jb.accept + 1, prev_done));
      ev_take.notify();
      DmaOut o = walk(in, jb.accept, prev_done, jb.rq);
      if (c.abort) return;
      prev_done = o.done;
      k.stall += o.wait;
      busy(c, VTA_MOD_LOAD, i, jb.accept, o.done);
      if (c.trace)
        fprintf(stderr, "sc load #%u accept %" PRIu64 " take %" PRIu64 " done %" PRIu64 "\n", i,
                jb.accept, o.take, o.done);
      k.insns++;
      if (in.push_next) tok_push(c, VTA_Q_LOAD_TO_COMPUTE, o.done);
      c.end_load = o.done;
    }
    c.done[VTA_MOD_LOAD] = true;
  }
};

// ---- compute (vta_compute): decode register, GEMM unit and ALU side by side, retire queue ----
struct Footprint {
  bool ok = false, nop = false, src = false;
  uint64_t dlo = 0, dhi = 0, slo = 0, shi = 0;
};

struct Unit : Footprint {  // the footprint of the instruction the unit issues
  bool any = false;
  cyc start = 0;  // the cycle the instruction started
  cyc last = 0;   // the cycle of the last micro-op issued
  uint32_t bgn = 0, end = 0;
  std::deque<std::pair<cyc, cyc>> wins;  // result-write windows of recent instructions
  // The footprint of the instruction before this one, live up to and including prev_until
  // while its last micro-ops may still be on their way to ACC (vta_compute's prev_*_q).
  Footprint prev;
  cyc prev_until = 0;
  // The ALU: its last three writes (w[0] the latest): the cycle each left X (in the unit's
  // issue clock), its destination, and the distance a reader keeps from it (2; 3 for a
  // SHRCLIP, 4 for a MUL, without reset: their results are ready one or two stages late).
  struct Write {
    bool any = false;
    cyc at = 0, gap = 0;
    uint64_t dst = 0;
  } w[3];
};

struct Compute : Mod {
  explicit Compute(sc_module_name nm) : Mod(nm, 2) {}

  // vta_uop_fp's lookup and vta_compute's footprint arithmetic.
  Footprint footprint(const vta_sc_insn &in) {
    Ctx &c = *ctx;
    vta_sc_state &st = *c.st;
    Footprint f;
    f.nop = in.uop_end <= in.uop_bgn || in.iter_out == 0 || in.iter_in == 0;
    f.src = in.opcode == VTA_OP_ALU && !in.use_imm;
    if (f.nop) {
      f.ok = true;
      return f;
    }
    const Rec *hit = nullptr;
    for (const Rec &r : st.rec)
      if (r.valid && r.lo <= in.uop_bgn && in.uop_end <= r.hi) hit = &r;
    if (!hit) return f;
    const uint64_t depth = c.cfg->depth[VTA_MEM_ACC];
    uint64_t io = in.iter_out - 1, ii = in.iter_in - 1;
    uint64_t dhi = hit->dmax + io * in.dfo + ii * in.dfi;
    uint64_t shi = hit->smax + io * in.sfo + ii * in.sfi;
    bool dok = dhi < depth, sok = shi < depth && hit->smin < depth;
    int bank = c.cfg->log_depth[VTA_MEM_ACC] - 1;
    f.dlo = hit->dmin;
    f.dhi = dhi;
    f.slo = hit->smin;
    f.shi = shi;
    f.ok = dok && (!f.src || sok) && ((f.dlo >> bank) & 1) == ((f.dhi >> bank) & 1);
    return f;
  }

  // A LOAD UOP's commit: the micro-op buffer and the footprint records.
  void commit_uops(const vta_sc_insn &in) {
    Ctx &c = *ctx;
    vta_sc_state &st = *c.st;
    const uint32_t depth = c.cfg->depth[VTA_MEM_UOP];
    uint64_t xt = uint64_t(in.x_pad_0) + in.x_size + in.x_pad_1;
    uint64_t yt = uint64_t(in.y_pad_0) + in.y_size + in.y_pad_1;
    uint64_t total = xt * yt;
    bool bad = uint64_t(in.sram_base) + total > depth;
    uint64_t dmin = ~0ull, dmax = 0, smin = ~0ull, smax = 0;
    uint64_t pos = in.sram_base;
    const uint32_t *w = c.job->uop_words + in.uop_words_at;
    for (uint64_t y = 0; y < yt; y++)
      for (uint64_t x = 0; x < xt; x++) {
        bool data = y >= in.y_pad_0 && y < in.y_pad_0 + in.y_size && x >= in.x_pad_0 &&
                    x < in.x_pad_0 + in.x_size;
        uint32_t word = data ? *w++ : 0;
        st.uop[pos % depth] = word;
        pos++;
        vta_uop u;
        vta_uop_decode(c.cfg, word, &u);
        dmin = std::min<uint64_t>(dmin, u.dst);
        dmax = std::max<uint64_t>(dmax, u.dst);
        smin = std::min<uint64_t>(smin, u.src);
        smax = std::max<uint64_t>(smax, u.src);
      }
    uint64_t lo = in.sram_base, hi = lo + total;
    for (Rec &r : st.rec)
      if (bad || (r.lo < hi && lo < r.hi)) r.valid = false;
    if (!bad) {
      Rec &r = st.rec[st.rec_ptr];
      r.valid = true;
      r.lo = lo;
      r.hi = hi;
      r.dmin = dmin;
      r.dmax = dmax;
      r.smin = smin;
      r.smax = smax;
      st.rec_ptr = (st.rec_ptr + 1) % 32;
    }
  }

  // Whether a LOAD ACC or ACC_8BIT may start beside a GEMM: no pads, and its entries
  // [sram_base, sram_base + rows x columns) inside the bank of the first one.
  bool ald_fits(const vta_sc_insn &in) const {
    const vta_config &cfg = *ctx->cfg;
    uint64_t depth = cfg.depth[VTA_MEM_ACC], half = depth / 2;
    if (in.x_pad_0 || in.x_pad_1 || in.y_pad_0 || in.y_pad_1 || in.sram_base >= depth) return false;
    uint64_t n = uint64_t(in.x_size) * in.y_size;
    return (in.sram_base % half) + n <= half;
  }

  static bool apart(uint64_t lo_a, uint64_t hi_a, uint64_t lo_b, uint64_t hi_b) {
    return hi_a < lo_b || hi_b < lo_a;
  }
  // o: the other unit's instruction (a Unit) or the one before it.
  bool compat(const Footprint &f, const Footprint &o) const {
    int bank = ctx->cfg->log_depth[VTA_MEM_ACC] - 1;
    if (!f.ok || !o.ok) return false;
    if (f.nop || o.nop) return true;
    return ((f.dlo >> bank) & 1) != ((o.dlo >> bank) & 1) &&
           (!o.src || apart(f.dlo, f.dhi, o.slo, o.shi)) &&
           (!f.src || apart(f.slo, f.shi, o.dlo, o.dhi));
  }

  // The ALU's stall cycles for an instruction of n micro-ops (vta_compute, "the ALU's stall"):
  // a micro-op that reads (as destination, or as vector operand) the ACC index a micro-op
  // wrote leaves X at least two cycles after it, three after a SHRCLIP and four after a
  // product (with the reset flag neither). first: the cycle its first micro-op issues without
  // stalls; per: cycles per micro-op. Updates the unit's last writes.
  uint64_t alu_stalls(const vta_sc_insn &in, uint64_t n, cyc first, cyc per, Unit &un) {
    Ctx &c = *ctx;
    vta_sc_state &st = *c.st;
    const uint64_t mask = c.cfg->depth[VTA_MEM_ACC] - 1, udepth = c.cfg->depth[VTA_MEM_UOP];
    const cyc gap = in.reset ? 2 : in.alu_op == VTA_ALU_MUL ? 4 : in.alu_op == VTA_ALU_SHRCLIP ? 3 : 2;
    uint64_t stalls = 0;
    cyc t = first;
    if (n == 0 || in.uop_end <= in.uop_bgn) return 0;
    std::vector<vta_uop> uops(in.uop_end - in.uop_bgn);  // decoded once per instruction
    for (uint64_t k = in.uop_bgn; k < in.uop_end; k++)
      vta_uop_decode(c.cfg, st.uop[k % udepth], &uops[k - in.uop_bgn]);
    for (uint64_t i = 0; i < in.iter_out; i++)
      for (uint64_t j = 0; j < in.iter_in; j++)
        for (const vta_uop &uo : uops) {
          uint64_t dst = (uo.dst + i * in.dfo + j * in.dfi) & mask;
          uint64_t src = (uo.src + i * in.sfo + j * in.sfi) & mask;
          cyc at = t;
          for (const Unit::Write &wr : un.w)
            if (wr.any && (dst == wr.dst || (!in.use_imm && src == wr.dst)))
              at = std::max<cyc>(at, wr.at + wr.gap);
          stalls += at - t;
          un.w[2] = un.w[1];
          un.w[1] = un.w[0];
          un.w[0] = {true, at, gap, dst};
          t = at + per;
        }
    return stalls;
  }

  void body() override {
    Ctx &c = *ctx;
    CmdQ &q = c.q[VTA_MOD_COMPUTE];
    Counters &k = c.cnt[VTA_MOD_COMPUTE];
    const vta_sc_params &par = *c.par;
    Unit unit[2];
    std::deque<cyc> rq;  // retire cycles of the entries that may still be in the retire queue
    cyc last_retire = 0, fire_prev = 0, load_done = 0;
    bool loaded = false;
    const uint32_t stages[2] = {par.gemm_stages, par.alu_stages};
    const uint32_t interlock[2] = {par.gemm_interlock, par.alu_interlock};
    const uint32_t per_uop[2] = {par.gemm_uop_cycles ? par.gemm_uop_cycles : 1,
                                 par.alu_uop_cycles ? par.alu_uop_cycles : 1};
    for (size_t e = 0; e < c.nmod[VTA_MOD_COMPUTE]; e++) {
      uint32_t i = q_get(c, q, e);
      if (c.abort) return;
      const vta_sc_insn &in = c.job->insns[i];
      cyc take = std::max(q.avail[e], fire_prev);
      q.taken.push_back(take);
      q.ev_taken.notify();
      count(c, VTA_SC_CTR_QUEUE + in.module, take, -1);
      cyc d_in = take + 1;
      cyc t = d_in;
      if (loaded) t = std::max(t, load_done + 1);  // every instruction after a LOAD waits for it
      bool is_uop = in.opcode == VTA_OP_GEMM || in.opcode == VTA_OP_ALU;
      bool is_load = in.opcode == VTA_OP_LOAD;
      uint64_t yt = uint64_t(in.y_pad_0) + in.y_size + in.y_pad_1;
      bool empty = is_load && (in.x_size == 0 || yt == 0);
      // A LOAD ACC or ACC_8BIT without pads whose entries lie in one bank starts beside a GEMM
      // that writes the other bank once the ALU is idle (vta_compute, can_ald), and completes
      // through the retire queue; its fit is known two cycles into D.
      bool acc_type = is_load && (in.mem_type == VTA_MEM_ACC || in.mem_type == VTA_MEM_ACC_8BIT);
      bool ald = acc_type && !empty && ald_fits(in);
      bool via_rq = is_uop || empty || (is_load && in.mem_type == VTA_MEM_UOP);
      if (via_rq && rq.size() >= 8) t = std::max(t, rq[rq.size() - 8] + 1);
      while (rq.size() > 8) rq.pop_front();
      Footprint f;
      cyc t_mem = 0;
      int u = in.opcode == VTA_OP_ALU;
      if (is_uop) {
        f = footprint(in);
        // The footprint is worked out in D (F0 to F2: vta_compute), F1 no earlier than the
        // cycle a LOAD before it completes (the records may change until then).
        t = std::max(t, d_in + 3);
        if (loaded) t = std::max(t, load_done + 2);
        if (unit[u].any) t = std::max(t, unit[u].last);
        // One that may interfere with the other unit's starts when that one issues its last
        // micro-op (plus the RTL's interlock when its pipeline is deeper than two stages).
        cyc other_ready = unit[!u].last + interlock[!u];
        if (unit[!u].any && other_ready > t && !compat(f, unit[!u])) t = other_ready;
        // And with the one before it while that one's last micro-ops may be in flight.
        if (unit[!u].any && unit[!u].prev_until >= t && !compat(f, unit[!u].prev))
          t = unit[!u].prev_until + 1;
      } else if (is_load && !empty && in.mem_type == VTA_MEM_UOP) {
        uint64_t lo = in.sram_base, hi = lo + uint64_t(in.x_pad_0) + in.x_size + in.x_pad_1;
        for (int p = 0; p < 2; p++)
          if (unit[p].any && unit[p].last >= t &&
              !(yt == 1 && (unit[p].end <= lo || hi <= unit[p].bgn)))
            t = std::max(t, unit[p].last + 1);
      } else if (!empty) {  // LOAD ACC/ACC_8BIT, FINISH: wait for everything to drain
        cyc t0 = t;
        for (int p = 0; p < 2; p++)
          if (unit[p].any) t = std::max(t, unit[p].last + stages[p] + 1);
        t = std::max(t, last_retire + 1);
        if (ald) {  // drained before its fit is known (D's third cycle), else by the rule
          cyc ta = std::max(t0, d_in + 2);
          if (rq.size() >= 8) ta = std::max(ta, rq[rq.size() - 8] + 1);
          if (unit[1].any) ta = std::max(ta, unit[1].last + stages[1] + 1);  // the ALU idle
          int bank = c.cfg->log_depth[VTA_MEM_ACC] - 1;
          uint64_t lb = (uint64_t(in.sram_base) >> bank) & 1;
          // The GEMM unit idle, or writing the other bank with the micro-ops of the instruction
          // before it out of the pipeline (its own start + stages + 1).
          const Unit &g = unit[0];
          cyc g_idle = g.any ? g.last + stages[0] + 1 : 0;
          bool apart = g.ok && !g.nop && ((g.dlo >> bank) & 1) != lb;
          if (g_idle > ta)
            ta = apart ? std::min(g_idle, std::max(ta, g.start + stages[0] + 1)) : g_idle;
          t_mem = t;
          t = t < d_in + 2 ? t : ta;  // the rule holds whenever drained, so ta <= t then
        }
      }
      // Tokens: both must be there in the same cycle; they only accumulate.
      cyc ready = t;
      if (in.pop_prev) t = std::max(t, tok_get(c, c.tok[VTA_Q_LOAD_TO_COMPUTE]));
      if (in.pop_next) t = std::max(t, tok_get(c, c.tok[VTA_Q_STORE_TO_COMPUTE]));
      if (c.abort) return;
      if (t > ready) {
        cyc idle_from = std::max(ready, k.busy_until);
        if (t > idle_from) k.stall += t - idle_from;
      }
      if (in.pop_prev) tok_pop(c, VTA_Q_LOAD_TO_COMPUTE, t);
      if (in.pop_next) tok_pop(c, VTA_Q_STORE_TO_COMPUTE, t);
      cyc fire = t;
      // Drained before D's third cycle: the plain path. Tokens may hold it past that cycle,
      // and from then on only the rule's path is open (it holds while drained).
      if (ald && t_mem < d_in + 2) {
        if (fire < d_in + 2) ald = false;
      }
      sync(c, fire);
      if (c.abort) return;
      fire_prev = fire;
      cyc pushes_at;
      if (is_uop) {
        uint64_t n = f.nop ? 0
                           : uint64_t(in.uop_end - in.uop_bgn) * in.iter_out * in.iter_in;
        cyc span = n ? n * per_uop[u] : 1;
        Unit &un = unit[u];
        if (u == 1 && par.alu_stall) span += alu_stalls(in, n, fire + 1, per_uop[u], un);
        if (un.any) {
          // The footprint this instruction replaces stays live while the replaced one's last
          // micro-op, issued at un.last (<= fire), is within interlock - 1 cycles; one still
          // live from before is not merged but makes the kept footprint unknown (vta_compute).
          bool old_live = un.prev_until >= fire + 1;
          un.prev = un;
          un.prev.ok = un.ok && !old_live;
          un.prev_until = std::max<cyc>(un.last + interlock[u] - 1, old_live ? fire + 1 : 0);
        }
        un.any = true;
        un.start = fire;
        un.last = fire + span;
        static_cast<Footprint &>(un) = f;
        un.bgn = in.uop_bgn;
        un.end = in.uop_end;
        cyc done = un.last + stages[u];
        if (n) {
          cyc w0 = fire + 1 + stages[u], w1 = done;
          // Cycles in which both units write: overlap with the other unit's windows.
          std::deque<std::pair<cyc, cyc>> &ow = unit[!u].wins;
          while (!ow.empty() && ow.front().second < w0) ow.pop_front();
          for (auto &w : ow) {
            cyc a = std::max(w.first, w0), b = std::min(w.second, w1);
            if (b >= a) {
              // With more than one cycle per micro-op the writes are every per_uop cycles.
              uint64_t both = b - a + 1;
              if (per_uop[0] > 1 || per_uop[1] > 1) both /= std::max(per_uop[0], per_uop[1]);
              c.dual += both;
            }
          }
          un.wins.push_back({w0, w1});
          while (un.wins.size() > 4) un.wins.pop_front();
        }
        last_retire = std::max(done, last_retire + 1);
        rq.push_back(last_retire);
        pushes_at = last_retire;
        busy(c, VTA_MOD_COMPUTE, i, fire, last_retire);
      } else if (empty) {
        last_retire = std::max(fire + 1, last_retire + 1);
        rq.push_back(last_retire);
        pushes_at = last_retire;
        busy(c, VTA_MOD_COMPUTE, i, fire, last_retire);
      } else if (is_load) {
        DmaOut o = dma(in, fire, fire + 1, 2);  // its first burst from registers (CmdReg)
        if (c.abort) return;
        k.stall += o.wait;
        load_done = o.done;
        loaded = true;
        if (in.mem_type == VTA_MEM_UOP || ald) {
          if (in.mem_type == VTA_MEM_UOP) commit_uops(in);
          last_retire = std::max(o.done, last_retire + 1);
          rq.push_back(last_retire);
          pushes_at = last_retire;
        } else {
          pushes_at = o.done;
        }
        busy(c, VTA_MOD_COMPUTE, i, fire, pushes_at);
      } else {  // FINISH
        pushes_at = fire;
        c.end_compute = std::max(c.end_compute, fire);
      }
      c.end_compute = std::max(c.end_compute, pushes_at);
      if (c.trace)
        fprintf(stderr,
                "sc compute #%u %s take %" PRIu64 " fire %" PRIu64 " done %" PRIu64
                " micro-ops %" PRIu64 " acc %" PRIu64 "-%" PRIu64 "\n",
                i, in.opcode == VTA_OP_GEMM ? "gemm" : in.opcode == VTA_OP_ALU ? "alu"
                   : in.opcode != VTA_OP_LOAD ? "finish" : in.mem_type == VTA_MEM_UOP ? "load-uop"
                   : in.mem_type == VTA_MEM_ACC ? "load-acc" : "load-acc8",
                take, fire, pushes_at,
                is_uop ? uint64_t(in.uop_end - in.uop_bgn) * in.iter_out * in.iter_in : 0,
                is_uop ? f.dlo : 0, is_uop ? f.dhi : 0);
      k.insns++;
      if (in.push_prev) tok_push(c, VTA_Q_COMPUTE_TO_LOAD, pushes_at);
      if (in.push_next) tok_push(c, VTA_Q_COMPUTE_TO_STORE, pushes_at);
    }
    c.done[VTA_MOD_COMPUTE] = true;
  }
};

// ---- store (vta_store): STOREs overlap their write responses ----
// The next STORE starts in the cycle the data side of the one before ends (its last beat
// sent), with at most kStoreTail non-empty STOREs started and not completed; each completes
// (and pushes its token) after its own last write response. A STORE that moves no data starts
// only when every earlier one has completed and completes in the cycle it starts.
const size_t kStoreTail = 4;    // vta_store's TailDepth
const cyc kStoreDataEnd = 2;    // the last beat (the DRAM's cycle) to the data side's end
struct Store : Mod {
  explicit Store(sc_module_name nm) : Mod(nm, 3) {}
  void body() override {
    Ctx &c = *ctx;
    CmdQ &q = c.q[VTA_MOD_STORE];
    Counters &k = c.cnt[VTA_MOD_STORE];
    const vta_config &cfg = *c.cfg;
    cyc prev_done = 0;      // the completion of the last STORE (all earlier ones are complete)
    cyc data_free = 0;      // the first cycle the data side can take the next STORE
    cyc next = 0;           // one STORE is taken a cycle at most
    std::deque<cyc> tail;   // completions of the last kStoreTail non-empty STOREs
    for (size_t e = 0; e < c.nmod[VTA_MOD_STORE]; e++) {
      uint32_t i = q_get(c, q, e);
      if (c.abort) return;
      const vta_sc_insn &in = c.job->insns[i];
      const bool empty = in.x_size == 0 || in.y_size == 0;
      cyc t = std::max(q.avail[e], next);
      if (empty) {
        t = std::max(t, prev_done + 1);
      } else {
        t = std::max(t, data_free);
        if (tail.size() == kStoreTail) t = std::max(t, tail.front() + 1);
      }
      cyc ready = t;
      if (in.pop_prev) {
        t = std::max(t, tok_get(c, c.tok[VTA_Q_COMPUTE_TO_STORE]));
        if (c.abort) return;
        tok_pop(c, VTA_Q_COMPUTE_TO_STORE, t);
        if (t > ready) {
          cyc idle_from = std::max(ready, k.busy_until);
          if (t > idle_from) k.stall += t - idle_from;
        }
      }
      sync(c, t);
      if (c.abort) return;
      q.taken.push_back(t);
      q.ev_taken.notify();
      count(c, VTA_SC_CTR_QUEUE + in.module, t, -1);
      next = t + 1;
      cyc done;
      if (empty) {
        done = t;
      } else {
        uint32_t eb = cfg.elem_bytes[VTA_MEM_OUT], bus = cfg.bus_bytes;
        cut_bursts(uint64_t(in.dram_base) * eb, uint64_t(in.x_stride) * eb,
                   uint64_t(in.x_size) * eb, in.y_size, bus, 16, bursts, true);
        // When each data beat is ready: OUT elements are read one a cycle (one per beat time
        // when an element spans beats) and packed by the write gearbox, a row starting a beat.
        const cyc d0 = t + kStoreData;
        const uint64_t per_elem = eb >= bus ? eb / bus : 1;
        size_t kb = 0;
        uint64_t kbeat = 0, elem = 0;
        cyc prev = 0;
        for (uint32_t r = 0; r < in.y_size; r++) {
          uint64_t off = ((uint64_t(in.dram_base) + uint64_t(r) * in.x_stride) * eb) & (bus - 1);
          uint64_t nbeats = (off + uint64_t(in.x_size) * eb + bus - 1) / bus;
          for (uint64_t j = 0; j < nbeats; j++) {
            cyc ready;
            if (eb >= bus) {
              ready = d0 + (elem + j / per_elem) * per_elem + j % per_elem;
            } else {
              uint64_t last_e = std::min<uint64_t>(((j + 1) * bus - off + eb - 1) / eb,
                                                   in.x_size) - 1;
              ready = d0 + elem + last_e;
            }
            if (prev && ready <= prev) ready = prev + 1;
            prev = ready;
            Burst &bb = bursts[kb];
            if (kbeat == 0) bb.first = ready;
            bb.last_ready = ready;
            if (++kbeat == bb.beats) {
              kb++;
              kbeat = 0;
            }
          }
          elem += in.x_size;
        }
        // (vta_burst_gen with CmdReg: the first address two cycles after the start.)
        transport(true, t + 2);
        if (c.abort) return;
        done = 0;
        cyc last = 0;
        for (const Burst &b : bursts) {
          done = std::max(done, b.first);
          last = std::max(last, b.last);
        }
        done += 2;
        data_free = last + kStoreDataEnd;
        busy(c, VTA_MOD_STORE, i, t, done);
        tail.push_back(done);
        if (tail.size() > kStoreTail) tail.pop_front();
      }
      if (c.trace)
        fprintf(stderr, "sc store #%u start %" PRIu64 " done %" PRIu64 "\n", i, t, done);
      k.insns++;
      prev_done = std::max(prev_done, done);
      if (in.push_prev) tok_push(c, VTA_Q_STORE_TO_COMPUTE, done);
      c.end_store = std::max(c.end_store, done);
    }
    c.done[VTA_MOD_STORE] = true;
  }
};

struct Top : sc_module {
  Dram dram;
  Fetch fetch;
  Load load;
  Compute compute;
  Store store;
  explicit Top(sc_module_name nm)
      : sc_module(nm), dram("dram"), fetch("fetch"), load("load"), compute("compute"),
        store("store") {
    // Binding order is the client index the DRAM sees (its b_transport's id): the RTL's
    // arbiter numbers fetch 0, load 1, compute 2; the store has the write channels.
    fetch.sock.bind(dram.sock);
    load.sock.bind(dram.sock);
    compute.sock.bind(dram.sock);
    store.sock.bind(dram.sock);
  }
};

std::mutex g_mu;
Top *g_top = nullptr;

}  // namespace

vta_sc_state *vta_sc_state_create(const vta_config *cfg) {
  vta_sc_state *s = new (std::nothrow) vta_sc_state;
  if (!s) return nullptr;
  s->cfg = *cfg;
  s->uop.assign(cfg->depth[VTA_MEM_UOP], 0);
  return s;
}

void vta_sc_state_destroy(vta_sc_state *s) { delete s; }

int vta_sc_model_run(vta_sc_state *s, const vta_sc_job *job, vta_sc_result *res, char *msg,
                     size_t n) {
  std::lock_guard<std::mutex> lock(g_mu);
  try {
    if (!g_top) {
      g_top = new Top("vta_sc");
      sc_start(SC_ZERO_TIME);
    }
  } catch (std::exception &e) {
    snprintf(msg, n, "SystemC elaboration failed: %s", e.what());
    return -1;
  }
  std::unique_ptr<Ctx> ctx(new Ctx);
  Ctx &c = *ctx;
  c.job = job;
  c.cfg = job->cfg;
  c.par = job->par;
  c.st = s;
  c.t0 = sc_time_stamp();
  const char *tr = getenv("VTA_SC_TRACE");
  c.trace = tr && *tr && *tr != '0';
  for (uint32_t i = 0; i < job->count; i++) c.nmod[job->insns[i].module]++;
  Top &t = *g_top;
  t.dram.ctx = t.fetch.ctx = t.load.ctx = t.compute.ctx = t.store.ctx = &c;
  t.dram.reset();
  c.dram = &t.dram;
  for (Mod *m : {static_cast<Mod *>(&t.fetch), static_cast<Mod *>(&t.load),
                 static_cast<Mod *>(&t.compute), static_cast<Mod *>(&t.store)}) {
    std::fill(std::begin(m->gb_take), std::end(m->gb_take), 0);
    m->beat_last = 0;
  }
  t.load.reset();
  t.fetch.go.notify(SC_ZERO_TIME);
  t.load.go.notify(SC_ZERO_TIME);
  t.compute.go.notify(SC_ZERO_TIME);
  t.store.go.notify(SC_ZERO_TIME);
  if (job->timeout)
    sc_start(sc_time(double(job->timeout) + 1, SC_NS));
  else
    sc_start();
  bool all = c.done[0] && c.done[1] && c.done[2] && c.done[3];
  int rc = 0;
  cyc end = std::max(std::max(c.end_load, c.end_compute), std::max(c.end_store, c.end_fetch)) +
            kDone;
  if (!all || (job->timeout && end > job->timeout)) {
    rc = sc_pending_activity() || (all && job->timeout && end > job->timeout) ? 1 : 2;
    static const char *const names[4] = {"load", "compute", "store", "fetch"};
    char busy[64] = "";
    for (int m = 0; m < 4; m++)
      if (!c.done[m]) {
        if (busy[0]) strncat(busy, ", ", sizeof busy - strlen(busy) - 1);
        strncat(busy, names[m], sizeof busy - strlen(busy) - 1);
      }
    if (rc == 1)
      snprintf(msg, n, "timeout after %" PRIu64 " cycles (still busy: %s)", job->timeout,
               busy[0] ? busy : "none");
    else
      snprintf(msg, n, "the modules deadlocked waiting for dependency tokens (still busy: %s)",
               busy);
    // Let the processes that are still waiting end: they see the abort flag when they wake.
    c.abort = true;
    for (int q = 0; q < 3; q++) {
      c.q[q].ev_routed.notify(SC_ZERO_TIME);
      c.q[q].ev_taken.notify(SC_ZERO_TIME);
    }
    for (int q = 0; q < VTA_Q_COUNT; q++) c.tok[q].ev.notify(SC_ZERO_TIME);
    t.load.ev_job.notify(SC_ZERO_TIME);
    t.load.ev_take.notify(SC_ZERO_TIME);
    t.dram.ev_settled.notify(SC_ZERO_TIME);
    sc_start();
  }
  res->cycles = end;
  for (int m = 0; m < 3; m++) {
    res->busy[m] = c.cnt[m].busy;
    res->stall[m] = c.cnt[m].stall;
    res->insns_by_module[m] = c.cnt[m].insns;
  }
  res->dual_cycles = c.dual;
  res->events = c.events;
  t.dram.ctx = t.fetch.ctx = t.load.ctx = t.compute.ctx = t.store.ctx = nullptr;
  return rc;
}
