/** The style sheet of the UI's own chrome and the agent page; the run tree uses `TRACE_CSS`. */
export const UI_CSS = `
:root { font-family: system-ui, sans-serif; color: #1d2330; background: #f6f7f9; }
body { margin: 0; }
header { display: flex; gap: 1rem; align-items: baseline; padding: .8rem 1.2rem; background: #1d2330; color: #fff; }
header h1 { font-size: 1.1rem; margin: 0; }
#connection { font-size: .85rem; opacity: .8; }
main, form { padding: 1rem 1.2rem; }
/* The run tree brings its own rules (TRACE_CSS, all under .rlm-trace); these stay outside it. */
.summary { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin-bottom: 1rem; }
.summary dt { font-weight: 600; }
.run-status { padding: .05rem .45rem; border-radius: .3rem; background: #dde3ee; font-weight: 600; }
.run-status.completed { background: #c9efd4; } .run-status.error, .run-status.interrupted { background: #f6cdcd; }
.run-status.running, .run-status.queued { background: #fff0bf; } .run-status.cancelled { background: #e4e4e4; }
#run-status-line { margin-bottom: .8rem; }
.layer pre { background: #f0f2f6; padding: .4rem .6rem; overflow-x: auto; white-space: pre-wrap; margin: .2rem 0; font-size: .82rem; }
table { border-collapse: collapse; background: #fff; }
td, th { border: 1px solid #dfe3ea; padding: .3rem .5rem; text-align: left; vertical-align: top; }
.layer { background: #fff; margin: .5rem 0; padding: .4rem .8rem; border-left: 3px solid #999; }
.layer.immutable { border-color: #8a2f2f; } .layer.mutable { border-color: #2f6f8a; } .layer.dynamic { border-color: #8a7a2f; }
.badge { font-size: .75rem; padding: .05rem .4rem; border-radius: .3rem; background: #e6e9f0; margin-left: .4rem; }
.hint { font-size: .8rem; color: #56607a; }
a { color: #2f5fb0; cursor: pointer; }
header nav a { color: #cfe0ff; font-size: .85rem; }
table.runs td.query { max-width: 32rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
table.runs td.number { text-align: right; font-variant-numeric: tabular-nums; }
`;
