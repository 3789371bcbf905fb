import {
  context,
  ROOT_CONTEXT,
  trace,
  TraceFlags,
  type Context,
  type ContextManager,
  type Span,
} from '@opentelemetry/api';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  currentTraceId,
  detachUnsampled,
  inSpan,
  inSpanAsync,
  markTracingStarted,
  markTracingStopped,
  parentContext,
  serverTracer,
  traceLogFields,
  tracingActive,
} from './spans.js';

// No SDK is registered here (the worker's other files share its globals): the tracer is the API's
// proxy, and what is pinned is inSpan's decision, counted at the tracer: a step of a call the
// sampler dropped makes no child span (it would be dropped too, and cost a span, ids and a context
// switch per step of nine calls in ten at sampling 0.1); a sampled or root call makes one.
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN_ID = '00f067aa0ba902b7';

/**
 * Enough of a context manager for synchronous `with` (the API's default keeps no context at all);
 * registered for this file's tests only, and removed again.
 */
class StackContextManager implements ContextManager {
  private current: Context = ROOT_CONTEXT;
  active(): Context {
    return this.current;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const before = this.current;
    this.current = ctx;
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.current = before;
    }
  }
  bind<T>(_ctx: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.current = ROOT_CONTEXT;
    return this;
  }
}

function parent(flags: TraceFlags): Span {
  return trace.wrapSpanContext({ traceId: TRACE_ID, spanId: PARENT_SPAN_ID, traceFlags: flags });
}

function under<T>(span: Span, fn: () => T): T {
  return context.with(trace.setSpan(context.active(), span), fn);
}

describe('with tracing started (no SDK: the API’s proxy tracer)', () => {
  let started: ReturnType<typeof vi.spyOn>;
  let registered = false;
  beforeEach(() => {
    registered = context.setGlobalContextManager(new StackContextManager());
    markTracingStarted(() => undefined, { captureToolContent: false });
    started = vi.spyOn(serverTracer(), 'startActiveSpan');
  });
  afterEach(() => {
    started.mockRestore();
    markTracingStopped();
    if (registered) context.disable();
  });

  describe('inSpan / inSpanAsync', () => {
    it('make no child of a span the sampler dropped, and still run the step', async () => {
      const unsampled = parent(TraceFlags.NONE);
      expect(under(unsampled, () => inSpan('mcp.authorize', () => 'checked'))).toBe('checked');
      await expect(
        under(unsampled, () => inSpanAsync('mcp.dispatch', () => Promise.resolve(42))),
      ).resolves.toBe(42);
      // The step runs in its parent's context: its log lines carry the parent's ids.
      under(unsampled, () =>
        inSpan('mcp.authorize', () =>
          expect(trace.getSpan(context.active())?.spanContext().spanId).toBe(PARENT_SPAN_ID),
        ),
      );
      expect(started).not.toHaveBeenCalled();
    });

    it('make one under a sampled parent, and at the root of a trace', async () => {
      under(parent(TraceFlags.SAMPLED), () => inSpan('mcp.authorize', () => 'checked'));
      await under(parent(TraceFlags.SAMPLED), () =>
        inSpanAsync('mcp.dispatch', () => Promise.resolve(42)),
      );
      inSpan('mcp.authorize', () => 'checked');
      expect(started.mock.calls.map((call: unknown[]) => call[0])).toEqual([
        'mcp.authorize',
        'mcp.dispatch',
        'mcp.authorize',
      ]);
    });

    it('pass a step’s error on unchanged either way', async () => {
      const boom = new TypeError('boom');
      const fail = (): never => {
        throw boom;
      };
      expect(() => under(parent(TraceFlags.NONE), () => inSpan('s', fail))).toThrow(boom);
      expect(() => under(parent(TraceFlags.SAMPLED), () => inSpan('s', fail))).toThrow(boom);
      await expect(
        under(parent(TraceFlags.NONE), () => inSpanAsync('s', () => Promise.reject(boom))),
      ).rejects.toBe(boom);
    });
  });

  describe('detachUnsampled', () => {
    it('takes a dropped span out of the context (what pg and ioredis skip on) and keeps its ids', () => {
      const detached = detachUnsampled(trace.setSpan(ROOT_CONTEXT, parent(TraceFlags.NONE)));
      expect(trace.getSpan(detached)).toBeUndefined();
      context.with(detached, () => {
        expect(currentTraceId()).toBe(TRACE_ID);
        expect(traceLogFields()).toEqual({
          trace_id: TRACE_ID,
          span_id: PARENT_SPAN_ID,
          trace_flags: '00',
        });
        // No span of its own either: one here would begin a new trace.
        expect(inSpan('mcp.authorize', () => 'checked')).toBe('checked');
      });
      expect(started).not.toHaveBeenCalled();
    });

    it('puts the dropped span back as the parent of a span of ours, so its sampling decision holds', () => {
      const detached = detachUnsampled(trace.setSpan(ROOT_CONTEXT, parent(TraceFlags.NONE)));
      const parentOf = context.with(detached, () => trace.getSpanContext(parentContext()));
      expect(parentOf).toEqual({
        traceId: TRACE_ID,
        spanId: PARENT_SPAN_ID,
        traceFlags: TraceFlags.NONE,
      });
      // Elsewhere the active context itself.
      expect(parentContext()).toBe(context.active());
    });

    it('leaves a sampled span where it is', () => {
      const sampled = trace.setSpan(ROOT_CONTEXT, parent(TraceFlags.SAMPLED));
      expect(detachUnsampled(sampled)).toBe(sampled);
      expect(detachUnsampled(ROOT_CONTEXT)).toBe(ROOT_CONTEXT);
    });
  });
});

describe('when tracing stopped', () => {
  it('the helpers make no span at all', () => {
    markTracingStarted(() => undefined, { captureToolContent: false });
    const tracer = serverTracer();
    markTracingStopped();
    const started = vi.spyOn(tracer, 'startActiveSpan');
    try {
      expect(tracingActive()).toBe(false);
      expect(inSpan('mcp.authorize', () => 'checked')).toBe('checked');
      expect(started).not.toHaveBeenCalled();
    } finally {
      started.mockRestore();
    }
  });
});
