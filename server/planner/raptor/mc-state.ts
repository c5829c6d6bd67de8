// Purpose: the scratch memory of the generalized-cost search (mc.ts): labels, bags, route bag.
/**
 * Scratch of the multi-criteria search (mc.ts), kept by the caller's RaptorState (made on its first
 * use) so a search allocates nothing but growth. Labels are a struct of arrays, appended and never
 * moved during a search (parents are label indexes); bags hold label indexes per stop.
 */

/** label kinds */
export const L_ACCESS = 0;
export const L_RIDE = 1;
export const L_STAY = 2;
export const L_WALK = 3;
/** a board label over a transfer rule pair (transfer-rules.ts): arr = the ride's arrival at the rule's source, pos = the entry, boardIdx = the ride's rule trip */
export const L_RULE = 4;

export class McScratch {
  /** labels in use */
  n = 0;
  cap = 0;
  /** label -> time (arrival by ride, or when boarding is possible), relative seconds */
  arr = new Int32Array(0);
  /** label -> generalized cost so far */
  cost = new Float64Array(0);
  /** label -> rides so far */
  round = new Uint8Array(0);
  kind = new Uint8Array(0);
  stop = new Int32Array(0);
  /** label -> the label it continues (ride: the board label; stay / walk: the ride label; access: -1) */
  parent = new Int32Array(0);
  /** ride label -> stop-time index (core.stopTimes) of its boarding event, its day slot and alighting position */
  boardIdx = new Int32Array(0);
  slot = new Uint8Array(0);
  pos = new Int32Array(0);
  /** label -> when the journey leaves the origin (its first boarding less the access walk and slack; access labels: unset) */
  dep = new Int32Array(0);
  /** label -> 1 once a better label pushed it out of its bag */
  dead = new Uint8Array(0);
  /** board label -> next new board label at the same stop in this round (-1 none) */
  next = new Int32Array(0);
  /** stop -> ride labels / board labels (rounds >= 1) not dominated */
  readonly rideBag: number[][];
  readonly boardBag: number[][];
  /** transfer rule entry -> its board labels (L_RULE) not dominated: the labels of one entry meet the same rules */
  readonly ruleBags = new Map<number, number[]>();
  /** stops whose bags hold labels (cleared after the search) */
  readonly touched: Int32Array;
  nTouched = 0;
  readonly isTouched: Uint8Array;
  /** stop -> first new board label of the current round (-1 none); the stops having one */
  readonly newHead: Int32Array;
  readonly newStops: Int32Array;
  nNewStops = 0;
  /** the ride labels set in the current round */
  rideNew: number[] = [];
  /** route bag of a scan: active trip, cost base (cost at boarding - departure), board label, boarding stop-time index, departure from the origin */
  rbTrip = new Int32Array(64);
  rbBase = new Float64Array(64);
  rbParent = new Int32Array(64);
  rbBoardIdx = new Int32Array(64);
  rbDep = new Int32Array(64);

  constructor(nStops: number) {
    this.rideBag = Array.from({ length: nStops }, () => []);
    this.boardBag = Array.from({ length: nStops }, () => []);
    this.touched = new Int32Array(nStops);
    this.isTouched = new Uint8Array(nStops);
    this.newHead = new Int32Array(nStops).fill(-1);
    this.newStops = new Int32Array(nStops);
    this.grow(1024);
  }

  /** Room for at least `want` labels. */
  grow(want: number): void {
    if (want <= this.cap) return;
    const cap = Math.max(want, this.cap * 2);
    const g = <T extends Int32Array | Float64Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const b = make(cap);
      b.set(a);
      return b;
    };
    this.arr = g(this.arr, (k) => new Int32Array(k));
    this.cost = g(this.cost, (k) => new Float64Array(k));
    this.round = g(this.round, (k) => new Uint8Array(k));
    this.kind = g(this.kind, (k) => new Uint8Array(k));
    this.stop = g(this.stop, (k) => new Int32Array(k));
    this.parent = g(this.parent, (k) => new Int32Array(k));
    this.boardIdx = g(this.boardIdx, (k) => new Int32Array(k));
    this.slot = g(this.slot, (k) => new Uint8Array(k));
    this.pos = g(this.pos, (k) => new Int32Array(k));
    this.dead = g(this.dead, (k) => new Uint8Array(k));
    this.dep = g(this.dep, (k) => new Int32Array(k));
    this.next = g(this.next, (k) => new Int32Array(k));
    this.cap = cap;
  }

  /** Route bag room for `want` entries. */
  growRouteBag(want: number): void {
    if (want <= this.rbTrip.length) return;
    const k = Math.max(want, 2 * this.rbTrip.length);
    const t = new Int32Array(k), b = new Float64Array(k), p = new Int32Array(k), x = new Int32Array(k), d = new Int32Array(k);
    t.set(this.rbTrip);
    b.set(this.rbBase);
    p.set(this.rbParent);
    x.set(this.rbBoardIdx);
    d.set(this.rbDep);
    this.rbTrip = t;
    this.rbBase = b;
    this.rbParent = p;
    this.rbBoardIdx = x;
    this.rbDep = d;
  }

  /** A new label; returns its index. */
  add(kind: number, stop: number, arr: number, cost: number, round: number, parent: number, dep: number): number {
    if (this.n >= this.cap) this.grow(this.n + 1);
    const i = this.n++;
    this.kind[i] = kind;
    this.stop[i] = stop;
    this.arr[i] = arr;
    this.cost[i] = cost;
    this.round[i] = round;
    this.parent[i] = parent;
    this.dep[i] = dep;
    this.dead[i] = 0;
    this.next[i] = -1;
    return i;
  }

  touch(p: number): void {
    if (!this.isTouched[p]) {
      this.isTouched[p] = 1;
      this.touched[this.nTouched++] = p;
    }
  }

  /** Empty every bag and list for the next search (labels are simply overwritten). */
  clear(): void {
    for (let i = 0; i < this.nTouched; i++) {
      const p = this.touched[i]!;
      this.rideBag[p]!.length = 0;
      this.boardBag[p]!.length = 0;
      this.isTouched[p] = 0;
    }
    this.nTouched = 0;
    for (let i = 0; i < this.nNewStops; i++) this.newHead[this.newStops[i]!] = -1;
    this.nNewStops = 0;
    this.rideNew.length = 0;
    this.ruleBags.clear();
    this.n = 0;
  }
}
