/**
 * Span capture for the adapters' telemetry tests: registers an AsyncLocalStorage context
 * manager and a tracer provider exporting to memory for the file's tests, and takes both down
 * afterwards (`trace.disable()`, `context.disable()`) so no global state leaks to other files.
 */
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll } from 'vitest';

/** Call at a test file's top level; returns the exporter holding every finished span. */
export function captureSpans(): InMemorySpanExporter {
  const exporter = new InMemorySpanExporter();
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
  });
  afterAll(() => {
    trace.disable();
    context.disable();
  });
  return exporter;
}
