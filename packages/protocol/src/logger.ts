/** A structured log function: a message plus optional JSON-safe fields. */
export type LogFn = (message: string, fields?: Record<string, unknown>) => void;

/** What packages log through; apps supply a real one (pino, console), packages default to silence. */
export interface Logger {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
}

/** A logger that drops everything: the default for every package. */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};
