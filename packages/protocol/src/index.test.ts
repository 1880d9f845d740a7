import { describe, expect, it } from 'vitest';
import * as api from './index.js';

// Other packages and users build on these names; removing or renaming one is a breaking change.
const STABLE_RUNTIME_EXPORTS = [
  'addCallUsage',
  'applyCallerChoices',
  'callerChoicesSchema',
  'END_STATUSES',
  'RESUMABLE_STATUSES',
  'isResumableStatus',
  'runSettingsSchema',
  'runLimitsSchema',
  'blockErrorSchema',
  'buildMetadataMessage',
  'buildUserPrompt',
  'chatMessageSchema',
  'codeBlockSchema',
  'codeFencePattern',
  'contextInfoSchema',
  'DEFAULT_CODE_LANGUAGES',
  'costOfCall',
  'DEFAULT_MAX_OUTPUT_CHARS',
  'dedentBlock',
  'describeIssues',
  'definedEntries',
  'emptyUsage',
  'errorInfo',
  'ERROR_KIND_BY_CODE',
  'ERROR_KINDS',
  'errorKind',
  'findCodeBlocks',
  'findFinalAnswer',
  'formatExecutionResult',
  'formatIteration',
  'isReservedName',
  'jsonValueSchema',
  'limitNameSchema',
  'mergeUsage',
  'METADATA_MAX_LISTED_CHUNKS',
  'modelRequestSchema',
  'modelPricingSchema',
  'modelResponseSchema',
  'modelUsageSummarySchema',
  'parseFinalMarker',
  'parseSchema',
  'queryMetadata',
  'replResultSchema',
  'REPL_LANGUAGES',
  'replLanguageSchema',
  'RESERVED_NAMES',
  'RlmError',
  'rlmChatCompletionSchema',
  'rlmIterationSchema',
  'RUN_EVENT_VERSION',
  'runEventSchema',
  'runStatusSchema',
  'silentLogger',
  'stopReasonSchema',
  'subCallRecordSchema',
  'tokenUsageSchema',
  'totalUsage',
  'TRAJECTORY_VERSION',
  'trajectoryRecordSchema',
  'truncateOutput',
  'truncationMarker',
  'unawaitedCallsNote',
  'unawaitedCallsSchema',
  'usageSummarySchema',
];

describe('@rlm/protocol entry', () => {
  it('keeps every stable export, each defined', () => {
    const defined = Object.entries(api)
      .filter(([, value]) => value !== undefined)
      .map(([name]) => name);
    expect(defined).toEqual(expect.arrayContaining(STABLE_RUNTIME_EXPORTS));
  });
});
