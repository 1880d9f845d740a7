// The environment of a user's shell, for scripts that start the README's commands as a user would.

/**
 * What a package manager sets for the script it runs (`pnpm test:docs`, `npm test`) and a user's
 * shell lacks. pnpm passes its own `npm_config_loglevel=info`, which outranks the repository's
 * `.npmrc` (`loglevel=silent`) for an `npm start` started from the script: npm's banner then
 * lands on stdout.
 */
const RUNNER_VARIABLE =
  /^(npm_config_loglevel|npm_lifecycle_\w+|npm_package_\w+|npm_command|INIT_CWD)$/;

/** `env` without the variables a package manager set for the script running now. */
export function shellEnv(env) {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !RUNNER_VARIABLE.test(name)));
}
