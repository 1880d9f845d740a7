/**
 * The style sheet of the trace view, every rule scoped to `.rlm-trace` so it can sit inside any
 * page (the server's run page) as well as in the self-contained file `rlm trace --html` writes.
 */
export const TRACE_CSS = `
.rlm-trace{font:14px/1.45 system-ui,sans-serif;color:#1d1d1f}
.rlm-trace h2{font-size:1.05rem;margin:.5rem 0}.rlm-trace h4{margin:.3rem 0;font-size:.9rem}
.rlm-trace .meta{color:#6e6e73;font-weight:normal;font-size:.85em;margin-left:.5em}
.rlm-trace dl.summary{display:grid;grid-template-columns:max-content 1fr max-content 1fr;gap:.2rem 1rem;background:#fff;border:1px solid #ddd;border-radius:6px;padding:.8rem;margin:0 0 1rem}
.rlm-trace dt{font-weight:600}.rlm-trace dd{margin:0;white-space:pre-wrap;max-height:6.5em;overflow:auto}
.rlm-trace dd.query,.rlm-trace dd.answer{grid-column:span 3}
.rlm-trace dd.outcome{font-weight:600}.rlm-trace dd.outcome.ok{color:#1a7f37}.rlm-trace dd.outcome.error{color:#c0262d}
.rlm-trace dd.outcome.limit{color:#a05a00}.rlm-trace dd.outcome.cancelled{color:#6e6e73}.rlm-trace dd.outcome.running{color:#0a64c8}
.rlm-trace .toolbar{display:flex;gap:.8rem;align-items:center;margin:.5rem 0}
.rlm-trace .toolbar input.search{flex:0 1 28rem;padding:.35rem .6rem;border:1px solid #bbb;border-radius:5px;font:inherit}
.rlm-trace .search-count{color:#6e6e73;font-size:.85em}
.rlm-trace section.timeline{background:#fff;border:1px solid #ddd;border-radius:6px;margin:0 0 1rem;font-size:12px}
.rlm-trace section.timeline:empty{display:none}
.rlm-trace .tl-head,.rlm-trace .tl-row{display:grid;grid-template-columns:minmax(0,32%) 5.5rem 5.5rem 1fr;align-items:center}
.rlm-trace .tl-head{border-bottom:1px solid #ddd;height:24px;color:#6e6e73;font-weight:600}
.rlm-trace .tl-body{position:relative;max-height:min(26rem,45vh);overflow:auto;contain:content}
.rlm-trace .tl-rows{position:absolute;inset:0 0 auto 0}
.rlm-trace .tl-row{position:absolute;left:0;right:0;height:22px;cursor:pointer;border-bottom:1px solid #f2f2f2}
.rlm-trace .tl-row:hover{background:#f3f6fb}.rlm-trace .tl-row.selected{background:#e3ecfb}.rlm-trace .tl-row.dimmed{opacity:.5}
.rlm-trace .tl-label{white-space:nowrap;overflow:hidden;text-overflow:ellipsis;padding-right:.4rem}
.rlm-trace .tl-row.kind-run .tl-label,.rlm-trace .tl-row.kind-rlm .tl-label{font-weight:600}
.rlm-trace .tl-tokens,.rlm-trace .tl-cost{text-align:right;padding-right:.6rem;font-variant-numeric:tabular-nums}
.rlm-trace .tl-track{position:relative;height:100%;margin-right:.6rem}
.rlm-trace .tl-axis .tl-tick{position:absolute;top:4px;transform:translateX(-50%);font-weight:normal;white-space:nowrap}
.rlm-trace .tl-axis .tl-tick:first-child{transform:none}.rlm-trace .tl-axis .tl-tick:last-child{transform:translateX(-100%)}
.rlm-trace .tl-bar{position:absolute;top:5px;height:12px;border-radius:3px;background:#34c759;min-width:2px}
.rlm-trace .outcome-error .tl-bar{background:#ff453a}.rlm-trace .outcome-limit .tl-bar{background:#ff9f0a}
.rlm-trace .outcome-cancelled .tl-bar{background:#8e8e93}.rlm-trace .outcome-running .tl-bar{background:#0a84ff}
.rlm-trace .kind-run .tl-bar,.rlm-trace .kind-rlm .tl-bar{opacity:.75}
.rlm-trace section.run{border-left:3px solid #0a84ff;padding-left:.8rem;margin:.8rem 0}
.rlm-trace section.run.depth-1{border-color:#bf5af2}.rlm-trace section.run.depth-2{border-color:#ff9f0a}
.rlm-trace details.turn{background:#fff;border:1px solid #ddd;border-radius:6px;margin:.5rem 0;padding:.4rem .8rem}
.rlm-trace details.turn.failed{border-color:#ff453a}.rlm-trace summary{cursor:pointer;font-weight:600}
.rlm-trace pre{white-space:pre-wrap;word-break:break-word;margin:.2rem 0;padding:.4rem .6rem;border-radius:4px;font:12.5px/1.4 ui-monospace,monospace;max-height:30rem;overflow:auto}
.rlm-trace pre.code{background:#1e1e1e;color:#e5e5e5}.rlm-trace pre.stdout,.rlm-trace pre.reply{background:#f0f4f0}.rlm-trace pre.empty{color:#999}
.rlm-trace pre.stderr,.rlm-trace pre.error{background:#fff0f0;color:#a00}.rlm-trace pre.prompt{background:#f3f0fa}
.rlm-trace .block,.rlm-trace .subcall{margin:.5rem 0}.rlm-trace .subcall{border-left:2px dashed #bf5af2;padding-left:.6rem}
.rlm-trace .subcall.error{border-left-color:#ff453a}
.rlm-trace .marks{margin:.2rem 0}.rlm-trace .mark{display:inline-block;border-radius:3px;padding:0 .35rem;margin-right:.3rem;font-size:.85em}
.rlm-trace .mark.cache-hit{background:#e3f6e8;color:#1d6b34}.rlm-trace .mark.escalation{background:#fff1db;color:#8a4b00}
.rlm-trace .tl-mark{margin-right:.25rem}
.rlm-trace .running>h4::after{content:" …";color:#0a84ff}
.rlm-trace mark.search-hit{background:#ffe066;color:inherit}.rlm-trace mark.slice-missing{background:#fff3cd;color:#7a5200}
.rlm-trace .flash{outline:2px solid #0a84ff;outline-offset:2px}
.rlm-trace .answer pre{background:#eaf7ea;border:1px solid #34c759}.rlm-trace .note{color:#a05a00}.rlm-trace .status{color:#a00}
`;
