// `npm install` runs this (the `prepare` script): it builds TypeScript to dist/, then installs
// the pre-commit hook (package.json "simple-git-hooks") for developers. An install without
// devDependencies (npm ci --omit=dev) has neither TypeScript nor the hook tools and keeps the
// dist/ built before. The hook is not installed in CI or outside a git checkout; commit with
// SKIP_SIMPLE_GIT_HOOKS=1 (or --no-verify) to bypass it once.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const installed = (file) => {
  try {
    return require.resolve(file);
  } catch {
    return null;
  }
};

if (installed("typescript/package.json")) {
  execFileSync("npm", ["run", "build"], { stdio: "inherit" });
} else {
  const state = existsSync("dist") ? "keeping the dist/ built before" : "there is no dist/ to run";
  console.warn(`chatd: TypeScript is not installed (devDependencies omitted): not building, ${state}.`);
}

const hooks = installed("simple-git-hooks/cli.js");
if (hooks && !process.env.CI && existsSync(".git")) {
  execFileSync(process.execPath, [hooks], { stdio: "inherit" });
}
