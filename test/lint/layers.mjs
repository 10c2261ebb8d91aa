#!/usr/bin/env node
// The import rule of src/, checked by `npm run lint` (plain JavaScript: it runs before any build).
//
//   cli, server   entry points and the composition root (server/create-app.ts builds the App)
//   api           HTTP endpoints: parse, authorize through actions, present
//   actions       check and do: validate, write in one transaction, emit events
//   queries       reads that answer a request: the register state and message fetches
//   presenters    pure functions of rows and snapshots: wire records and events
//   cache         process-wide caches of snapshots (realms, channels, user state)
//   lib           domain helpers and queries (narrows, unread counts, validation)
//   permissions   every access and group-setting rule, written once
//   world         the in-memory picture rules are evaluated against (realm and channel
//                 snapshots, roles, system groups)
//   render        Markdown to HTML, pure
//   db            Knex, transactions, rows, the outbox, SQLite specifics
//   base          config, errors, logger, clock, params (the parameter DSL), and wire/: the
//                 ChatEvent union (wire/events.ts) and the records events carry (wire/records.ts)
//
// The web client (src/web, built for the browser) is its own world: it imports the
// server's modules for their types only (`import type`: nothing of the server is
// bundled), and nothing outside it imports it.
//
// Each layer imports only the layers below it. `http` (request parsing, auth) and `events`
// (queues, hub, flavours) are infrastructure: the layers above actions use them, actions
// and everything below never do. `app.ts` (the App interface) is the context that api,
// actions, queries, http and the entry points receive. Type imports count, and neither
// files nor folders may import each other in a circle: no folder of src/ (a file at its
// root counts as a folder of its own) imports one that imports it back.
//
// Usage: node test/lint/layers.mjs [src directory, default the project's src/]
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const root = resolve(dirname(new URL(import.meta.url).pathname), "../..");
const src = process.argv[2] ? resolve(process.argv[2]) : join(root, "src");

/** Base modules: files at src/'s root, and folders. */
const BASE = new Set(["config.ts", "errors.ts", "logger.ts", "clock.ts", "params.ts", "wire"]);

/** The folder of src/ a file (path relative to src/) is in; a file at the root is its own. */
const folderOf = (file) => (file.includes("/") ? file.slice(0, file.indexOf("/")) : file);

/** The layer of a file (path relative to src/). */
function layerOf(file) {
  if (BASE.has(folderOf(file))) return "base";
  return folderOf(file).replace(/\.ts$/, "");
}

const ORDER = [
  "api",
  "actions",
  "queries",
  "presenters",
  "cache",
  "lib",
  "permissions",
  "world",
  "render",
  "db",
];
const below = (layer) => ORDER.slice(ORDER.indexOf(layer) + 1);

/** Which layers each layer may import (besides itself and base). */
const ALLOWED = {
  cli: ["server", "app", "http", "events", ...ORDER],
  server: ["app", "http", "events", ...ORDER],
  api: ["app", "http", "events", ...below("api")],
  http: ["app", ...below("queries")],
  events: below("actions"),
  // lib for the PreparedMessage type of App.messageSends.
  app: ["events", "cache", "lib", "db"],
  ...Object.fromEntries(
    ORDER.slice(1).map((layer) => [
      layer,
      ["actions", "queries"].includes(layer) ? ["app", ...below(layer)] : below(layer),
    ]),
  ),
  base: [],
};

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : /\.tsx?$/.test(path) ? [path] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*"(\.[^"]+)"|\bimport\(\s*"(\.[^"]+)"\s*\)/g;

const files = walk(src).map((path) => relative(src, path));
const graph = new Map();
/** Folder to folder: for each pair, the first import found that links them. */
const folderGraph = new Map();
const problems = [];
for (const file of files) {
  const text = readFileSync(join(src, file), "utf8");
  const targets = [];
  for (const match of text.matchAll(IMPORT)) {
    const spec = match[1] ?? match[2];
    let target = relative(src, resolve(join(src, dirname(file)), spec)).replace(/\.js$/, ".ts");
    if (target.startsWith("..") || /\.css$/.test(target)) continue;
    if (!files.includes(target) && files.includes(`${target}x`)) target = `${target}x`;
    const from = layerOf(file);
    const to = layerOf(target);
    const typeOnly = /^\s*(?:import|export)\s+type\b/.test(match[0]);
    // The client's type-only imports of the server are erased when it is built: no circle through them.
    if (!(typeOnly && from === "web" && to !== "web")) targets.push(target);
    // Folder circles count every import, type-only ones too, the web client's included: a
    // folder that needs another's types depends on it all the same. (Nothing may import
    // web/, so its erased imports of the server could close no circle anyway.)
    const [fromFolder, toFolder] = [folderOf(file), folderOf(target)];
    if (fromFolder !== toFolder) {
      if (!folderGraph.has(fromFolder)) folderGraph.set(fromFolder, new Map());
      if (!folderGraph.get(fromFolder).has(toFolder))
        folderGraph.get(fromFolder).set(toFolder, `${file} imports ${target}`);
    }
    const allowed =
      from === "web" || to === "web"
        ? from === to || (from === "web" && typeOnly)
        : from === to || to === "base" || ALLOWED[from]?.includes(to);
    if (!allowed) problems.push(`${file} imports ${target}: ${from} may not import ${to}`);
  }
  graph.set(file, targets);
}

/** Circles of a graph (node to the nodes it imports): Tarjan's strongly connected components. */
function circles(graph) {
  const found = [];
  let index = 0;
  const stack = [];
  const info = new Map();
  function connect(node) {
    info.set(node, { index, low: index, onStack: true });
    index++;
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!info.has(next)) {
        connect(next);
        info.get(node).low = Math.min(info.get(node).low, info.get(next).low);
      } else if (info.get(next).onStack) {
        info.get(node).low = Math.min(info.get(node).low, info.get(next).index);
      }
    }
    if (info.get(node).low === info.get(node).index) {
      const members = [];
      let member;
      do {
        member = stack.pop();
        info.get(member).onStack = false;
        members.push(member);
      } while (member !== node);
      if (members.length > 1) found.push(members.sort());
    }
  }
  for (const node of graph.keys()) if (!info.has(node)) connect(node);
  return found;
}

for (const members of circles(graph)) problems.push(`circle: ${members.join(" -> ")}`);
const folderTargets = new Map([...folderGraph].map(([folder, targets]) => [folder, [...targets.keys()]]));
for (const members of circles(folderTargets)) {
  const links = members.flatMap((folder) =>
    [...folderGraph.get(folder)].filter(([to]) => members.includes(to)).map(([, link]) => link),
  );
  problems.push(`folder circle: ${members.join(", ")} (${links.join("; ")})`);
}

if (problems.length > 0) {
  console.error(`Import rule broken (see test/lint/layers.mjs):\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
