// Which installed packages would compile on install: how verify-pack proves a lean install.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readJson } from './run-checked.mjs';

const INSTALL_HOOKS = ['preinstall', 'install', 'postinstall'];

/** Whether the package in `path` runs a build on install: an install script, or a binding.gyp. */
function buildsOnInstall(path, { scripts = {}, gypfile }) {
  if (INSTALL_HOOKS.some((hook) => scripts[hook])) return true;
  return gypfile !== false && existsSync(join(path, 'binding.gyp'));
}

/** The package directories directly in a node_modules folder, scoped ones included. */
function packageDirs(nodeModules) {
  if (!existsSync(nodeModules)) return [];
  return readdirSync(nodeModules, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .flatMap((entry) => {
      const path = join(nodeModules, entry.name);
      return entry.name.startsWith('@') ? packageDirs(path) : [path];
    })
    .filter((path) => existsSync(join(path, 'package.json')));
}

/** Names of the installed packages (nested ones too) that would build on install, sorted. */
export function packagesThatBuild(nodeModules) {
  const found = new Set();
  for (const path of packageDirs(nodeModules)) {
    const manifest = readJson(join(path, 'package.json'));
    if (buildsOnInstall(path, manifest)) found.add(manifest.name);
    for (const nested of packagesThatBuild(join(path, 'node_modules'))) found.add(nested);
  }
  return [...found].sort();
}
