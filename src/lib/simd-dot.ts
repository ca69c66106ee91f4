// A tiny WebAssembly kernel for the vector index: the dot products of one query vector with every row of
// a float32 matrix, four lanes at a time (wasm SIMD, in every Node ≥ 16.4). Pure JavaScript needs
// ~45–130 ms for 100k × 256 dimensions on our machines; this kernel ~4–5 ms (memory bandwidth). The
// module is assembled here from its instructions (a few hundred bytes), so there is no build step and
// no binary blob to trust; `loadDotKernel` answers null where wasm SIMD is missing (callers then use
// their JavaScript loop).
//
//   scores(matrix, query, out, rows, stride):   stride in floats, a multiple of 16
//     for each row r < rows: out[r] = Σ matrix[r·stride + d] · query[d]   (4 × f32x4 accumulators)

const u32 = (n: number): number[] => {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n) byte |= 0x80;
    out.push(byte);
  } while (n);
  return out;
};
const s32 = (n: number): number[] => {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && !(byte & 0x40)) || (n === -1 && byte & 0x40)) return [...out, byte];
    out.push(byte | 0x80);
  }
};
const name = (s: string) => [...u32(s.length), ...Buffer.from(s, 'utf8')];
const section = (id: number, content: number[]) => [id, ...u32(content.length), ...content];
const vec = (items: number[][]) => [...u32(items.length), ...items.flat()];

const I32 = 0x7f,
  V128 = 0x7b;
const get = (i: number) => [0x20, ...u32(i)];
const set = (i: number) => [0x21, ...u32(i)];
const i32const = (n: number) => [0x41, ...s32(n)];
const I32_ADD = 0x6a,
  I32_SHL = 0x74,
  I32_LT_U = 0x49,
  I32_GE_U = 0x4f,
  F32_ADD = 0x92;
const simd = (op: number, ...immediates: number[]) => [0xfd, ...u32(op), ...immediates];
const v128load = (offset: number) => simd(0x00, 4, ...u32(offset));
const v128zero = simd(0x0c, ...new Array<number>(16).fill(0));
const F32X4_EXTRACT = 0x1f,
  F32X4_ADD = 0xe4,
  F32X4_MUL = 0xe6;
const BLOCK = [0x02, 0x40],
  LOOP = [0x03, 0x40],
  END = 0x0b,
  BR_IF = 0x0d;

function module(): Uint8Array<ArrayBuffer> {
  // params 0..4: matrix, query, out (byte offsets), rows, stride; locals: rowEnd, queryPtr, outEnd, 4 × v128
  const M = 0,
    Q = 1,
    OUT = 2,
    ROWS = 3,
    STRIDE = 4,
    ROW_END = 5,
    QP = 6,
    OUT_END = 7,
    A = 8;
  const body = [
    ...get(OUT),
    ...get(ROWS),
    ...i32const(2),
    I32_SHL,
    I32_ADD,
    ...set(OUT_END),
    ...get(STRIDE),
    ...i32const(2),
    I32_SHL,
    ...set(STRIDE), // stride in bytes from here on
    ...BLOCK,
    ...get(OUT),
    ...get(OUT_END),
    I32_GE_U,
    BR_IF,
    0,
    ...LOOP, // rows
    ...[0, 1, 2, 3].flatMap((k) => [...v128zero, ...set(A + k)]),
    ...get(Q),
    ...set(QP),
    ...get(M),
    ...get(STRIDE),
    I32_ADD,
    ...set(ROW_END),
    ...LOOP, // 16 floats per turn
    ...[0, 1, 2, 3].flatMap((k) => [
      ...get(A + k),
      ...get(M),
      ...v128load(16 * k),
      ...get(QP),
      ...v128load(16 * k),
      ...simd(F32X4_MUL),
      ...simd(F32X4_ADD),
      ...set(A + k),
    ]),
    ...get(M),
    ...i32const(64),
    I32_ADD,
    ...set(M),
    ...get(QP),
    ...i32const(64),
    I32_ADD,
    ...set(QP),
    ...get(M),
    ...get(ROW_END),
    I32_LT_U,
    BR_IF,
    0,
    END,
    ...get(A),
    ...get(A + 1),
    ...simd(F32X4_ADD),
    ...get(A + 2),
    ...get(A + 3),
    ...simd(F32X4_ADD),
    ...simd(F32X4_ADD),
    ...set(A),
    ...get(OUT),
    ...get(A),
    ...simd(F32X4_EXTRACT, 0),
    ...get(A),
    ...simd(F32X4_EXTRACT, 1),
    F32_ADD,
    ...get(A),
    ...simd(F32X4_EXTRACT, 2),
    ...get(A),
    ...simd(F32X4_EXTRACT, 3),
    F32_ADD,
    F32_ADD,
    0x38,
    2,
    0, // f32.store align=4 offset=0
    ...get(OUT),
    ...i32const(4),
    I32_ADD,
    ...set(OUT),
    ...get(OUT),
    ...get(OUT_END),
    I32_LT_U,
    BR_IF,
    0,
    END,
    END, // block
    END, // function
  ];
  const code = [
    ...vec([
      [...u32(3), I32],
      [...u32(4), V128],
    ]),
    ...body,
  ];
  return new Uint8Array([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, vec([[0x60, ...vec([[I32], [I32], [I32], [I32], [I32]]), 0]])), // type: (i32 × 5) → ()
    ...section(2, vec([[...name('env'), ...name('memory'), 0x02, 0x00, 0x01]])), // import env.memory
    ...section(3, vec([[0]])),
    ...section(7, vec([[...name('scores'), 0x00, 0]])),
    ...section(10, vec([[...u32(code.length), ...code]])),
  ]);
}

export type DotKernel = (matrix: number, query: number, out: number, rows: number, stride: number) => void;

let compiled: WebAssembly.Module | null | undefined;

/** A kernel bound to `memory`, or null where WebAssembly SIMD is unavailable. */
export function loadDotKernel(memory: WebAssembly.Memory): DotKernel | null {
  if (compiled === undefined) {
    try {
      compiled = new WebAssembly.Module(module());
    } catch {
      compiled = null;
    }
  }
  if (!compiled) return null;
  return new WebAssembly.Instance(compiled, { env: { memory } }).exports.scores as DotKernel;
}
