// The outgoing-webhook bot's service for the benchmark, as a child process (pinned to the
// load generator's core, so its work never lands on the server's): answers every POST
// after `delayMs` with Zulip's `response_not_required` (the bot posts nothing, so both
// phases send the same messages). GET /count reports {received, answered}. Prints its
// port as one JSON line once listening.
import { createServer } from "node:http";
import { readInput } from "./processes.js";

const { delayMs } = readInput<{ delayMs: number }>();
let received = 0;
let answered = 0;
const server = createServer((req, res) => {
  if (req.method === "GET" && req.url === "/count") {
    res.end(JSON.stringify({ received, answered }));
    return;
  }
  received++;
  req.resume();
  req.on("end", () => {
    setTimeout(() => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ response_not_required: true }), () => answered++);
    }, delayMs);
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`);
});
