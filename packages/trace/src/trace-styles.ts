/**
 * The style sheet of the trace view, every rule scoped to `.rlm-trace` so it can sit inside any
 * page (the server's run page) as well as in the self-contained file `rlm trace --html` writes.
 */
export const TRACE_CSS = `
.rlm-trace{font:14px/1.45 system-ui,sans-serif;color:#1d1d1f}
.rlm-trace h2{font-size:1.05rem;margin:.5rem 0}.rlm-trace h4{margin:.3rem 0;font-size:.9rem}
.rlm-trace .meta{color:#6e6e73;font-weight:normal;font-size:.85em;margin-left:.5em}
.rlm-trace dl.summary{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;background:#fff;border:1px solid #ddd;border-radius:6px;padding:.8rem;margin:0 0 1rem}
.rlm-trace dt{font-weight:600}.rlm-trace dd{margin:0;white-space:pre-wrap}
.rlm-trace section.run{border-left:3px solid #0a84ff;padding-left:.8rem;margin:.8rem 0}
.rlm-trace section.run.depth-1{border-color:#bf5af2}.rlm-trace section.run.depth-2{border-color:#ff9f0a}
.rlm-trace details.turn{background:#fff;border:1px solid #ddd;border-radius:6px;margin:.5rem 0;padding:.4rem .8rem}
.rlm-trace details.turn.failed{border-color:#ff453a}.rlm-trace summary{cursor:pointer;font-weight:600}
.rlm-trace pre{white-space:pre-wrap;word-break:break-word;margin:.2rem 0;padding:.4rem .6rem;border-radius:4px;font:12.5px/1.4 ui-monospace,monospace;max-height:30rem;overflow:auto}
.rlm-trace pre.code{background:#1e1e1e;color:#e5e5e5}.rlm-trace pre.stdout,.rlm-trace pre.reply{background:#f0f4f0}.rlm-trace pre.empty{color:#999}
.rlm-trace pre.stderr,.rlm-trace pre.error{background:#fff0f0;color:#a00}.rlm-trace pre.prompt{background:#f3f0fa}
.rlm-trace .block,.rlm-trace .subcall{margin:.5rem 0}.rlm-trace .subcall{border-left:2px dashed #bf5af2;padding-left:.6rem}
.rlm-trace .running>h4::after{content:" …";color:#0a84ff}
.rlm-trace .answer pre{background:#eaf7ea;border:1px solid #34c759}.rlm-trace .note{color:#a05a00}.rlm-trace .status{color:#a00}
`;
