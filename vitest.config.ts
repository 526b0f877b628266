import { defineConfig } from 'vitest/config';
import StreamHeavyFirst from './test/support/sequencer.ts';

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/env.ts'],
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Files whose speed depends on DynamoDB Local's shared stream store run first (test/support/sequencer.ts).
    sequence: { sequencer: StreamHeavyFirst },
    // Handlers run in-process by unit tests log and emit metrics nowhere; tests that read them turn them on.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true' },
  },
});
