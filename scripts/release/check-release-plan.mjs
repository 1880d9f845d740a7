#!/usr/bin/env node
// Fails when the release plan bumps a package further than any changeset asked for.
//
//   node scripts/release/check-release-plan.mjs <plan.json>   (from `changeset status --output`)
//
// Changesets turns a minor bump of a peer dependency into a major bump of each package that
// declares it, and the fixed group then takes every package to that major: a release of minor
// and patch changesets would have published 1.0.0. A major release is only right when a changeset
// says so.
import { readFileSync } from 'node:fs';

const file = process.argv[2];
if (file === undefined) {
  console.error('usage: node scripts/release/check-release-plan.mjs <plan.json>');
  process.exit(2);
}
const plan = JSON.parse(readFileSync(file, 'utf8'));
const RANK = { none: 0, patch: 1, minor: 2, major: 3 };
let asked = 0;
for (const changeset of plan.changesets ?? []) {
  for (const release of changeset.releases ?? []) {
    asked = Math.max(asked, RANK[release.type] ?? 0);
  }
}
const over = (plan.releases ?? []).filter((release) => (RANK[release.type] ?? 0) > asked);
if (over.length > 0) {
  const names = over.map((release) => `${release.name} → ${release.newVersion} (${release.type})`);
  const highest = Object.keys(RANK).find((type) => RANK[type] === asked);
  console.error(
    `check-release-plan: the plan bumps further than any changeset asks (at most ${highest}):\n  ${names.join('\n  ')}\n` +
      'A peer dependency whose range the new version leaves makes its dependents major; see .changeset/config.json.',
  );
  process.exit(1);
}
console.log(
  `check-release-plan: ${(plan.releases ?? []).length} packages, no bump beyond what the changesets ask`,
);
