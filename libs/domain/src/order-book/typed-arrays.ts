/** Pools grow by doubling: a copy now and then, never an allocation per operation. */
export function growU8(a: Uint8Array, cap: number): Uint8Array {
  const b = new Uint8Array(cap);
  b.set(a.subarray(0, Math.min(a.length, cap)));
  return b;
}

export function growI32(a: Int32Array, cap: number): Int32Array {
  const b = new Int32Array(cap);
  b.set(a.subarray(0, Math.min(a.length, cap)));
  return b;
}

export function growF64(a: Float64Array, cap: number): Float64Array {
  const b = new Float64Array(cap);
  b.set(a.subarray(0, Math.min(a.length, cap)));
  return b;
}
