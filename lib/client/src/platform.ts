/** What the client needs of the platform it runs on, where platforms differ. */

/** Whether it runs in a page or a worker, whose fetch keeps its own User-Agent. */
export const inBrowser = () =>
  typeof (globalThis as { document?: unknown }).document !== 'undefined' ||
  typeof (globalThis as { importScripts?: unknown }).importScripts === 'function';

let crypto: Promise<Crypto | undefined> | undefined;

/**
 * The platform's Web Crypto: the global one (browsers, Deno, Bun, Node 20+), or on Node 18, whose modules
 * have no global `crypto`, `node:crypto`'s (loaded by a name bundlers leave alone: a browser never asks).
 */
export function webCrypto(): Promise<Crypto | undefined> {
  crypto ??= globalThis.crypto ? Promise.resolve(globalThis.crypto) : nodeWebCrypto();
  return crypto;
}

async function nodeWebCrypto(): Promise<Crypto | undefined> {
  if (!(globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node) return undefined;
  const name = 'node:crypto';
  try {
    return ((await import(/* webpackIgnore: true */ /* @vite-ignore */ name)) as { webcrypto: Crypto }).webcrypto;
  } catch {
    return undefined;
  }
}

/** A fresh Idempotency-Key: a UUID, or (where `crypto.randomUUID` is missing: a page served over plain http) one of its shape from random bytes. */
export async function randomKey(): Promise<string> {
  const crypto = await webCrypto();
  if (typeof crypto?.randomUUID === 'function') return crypto.randomUUID();
  const bytes = new Uint8Array(16);
  if (typeof crypto?.getRandomValues === 'function') crypto.getRandomValues(bytes);
  else for (let i = 0; i < 16; i++) bytes[i] = Math.floor(Math.random() * 256);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
