// The per-control-plane name of the operator's API token: stable, and distinct for every namespace/name.

const fnvOffset64 = 0xcbf29ce484222325n;
const fnvPrime64 = 0x100000001b3n;

/** FNV-1a, 64 bit, over the given bytes; the hash is 16 lower-case hex digits. */
export function fnv1a64(bytes: Uint8Array): bigint {
  let hash = fnvOffset64;
  for (const byte of bytes) {
    hash = BigInt.asUintN(64, (hash ^ BigInt(byte)) * fnvPrime64);
  }
  return hash;
}

export function fnv1a64Hex(text: string): string {
  return fnv1a64(new TextEncoder().encode(text)).toString(16).padStart(16, '0');
}

/**
 * `coder-k8s-operator-<FNV-1a-64 of namespace + "\0" + name>`, as the Go original names it, so that two
 * control planes sharing one database get two tokens and an upgrade from the original keeps its token.
 */
export function operatorTokenName(namespace: string, name: string): string {
  return `coder-k8s-operator-${fnv1a64Hex(`${namespace}\0${name}`)}`;
}
