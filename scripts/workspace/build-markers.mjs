// The files a package's build writes last, one per build step that can finish: the build's progress
// lines (build-progress.mjs) count a package built once all of its markers are newer than the step.

/** Written by `tsc -b` (every package's tsconfig.build.json puts it there). */
export const TS_BUILD_INFO = '.tsbuildinfo';
/** Written by scripts/workspace/bundle-app.mjs after an app's bundle (packages with `bundle`). */
export const BUNDLE_INFO = '.bundle-info.json';

/** The markers, under the package's dist/, that a package with this manifest writes. */
export function buildMarkers(manifest) {
  return manifest.bundle === undefined ? [TS_BUILD_INFO] : [TS_BUILD_INFO, BUNDLE_INFO];
}
