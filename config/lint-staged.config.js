// Checks on staged files before each commit (`npm run lint:staged`, run by the pre-commit hook
// that `npm install` installs): the formatter and ESLint fix what they can, and the import
// layers are checked whenever a source file changes. `npm run lint` stays the full check.
export default {
  "*.ts": ["prettier --write", "eslint --config config/eslint.config.js --fix --no-warn-ignored"],
  "*.{js,mjs,cjs,json,md,yml,yaml}": "prettier --write",
  "src/**/*.ts": () => "node test/lint/layers.mjs",
};
