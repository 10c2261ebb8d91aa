/**
 * A password-hashing process of the pool in password-hash-pool.ts: it answers each
 * `HashRequest` from its parent with the scrypt key. It runs at the lowest CPU priority,
 * so a login flood's hashing only gets the cores the server leaves idle; the pool's
 * rescuer, which runs what starved there, a little higher (CHATD_HASH_WORKER_NICE).
 */
import { scrypt } from "node:crypto";
import { setPriority } from "node:os";
import type { HashReply, HashRequest } from "./password-hash-pool.js";

/** scrypt's memory ceiling: above the server's 16 MiB hashes, below what a forged cost could ask. */
const MAX_MEMORY = 64 * 1024 * 1024;

try {
  setPriority(Number(process.env.CHATD_HASH_WORKER_NICE ?? 19));
} catch {
  // Where the system refuses (it never should: lowering one's priority needs no privilege),
  // hashing still works, just at the server's priority.
}

function reply(message: HashReply): void {
  process.send?.(message);
}

process.on("message", (request: HashRequest) => {
  try {
    scrypt(
      request.password.normalize("NFKC"),
      Buffer.from(request.salt, "base64"),
      request.keyLength,
      { N: request.N, r: request.r, p: request.p, maxmem: MAX_MEMORY },
      (err, key) =>
        reply(err ? { id: request.id, error: err.message } : { id: request.id, key: key.toString("base64") }),
    );
  } catch (err) {
    // Invalid parameters (a malformed stored hash) throw before hashing starts.
    reply({ id: request.id, error: err instanceof Error ? err.message : String(err) });
  }
});

// The parent is gone (exited, crashed, killed) or done with this process: never outlive it.
process.on("disconnect", () => process.exit(0));
