/**
 * A sandbox runtime whose sandbox starts and commands are spans (OpenTelemetry):
 * `agent_platform.sandbox.start` and `agent_platform.sandbox.exec`, children of whatever is
 * active when they are called (a run's agent step), with the runtime's name, the sandbox id and
 * the command's exit (code, timed out, cancelled, truncated) — never the command line, its
 * environment, its input or its output, which may hold secrets or payload values. Each command
 * is also counted (`agent_platform.sandbox.commands` by runtime and result).
 *
 * Everything else is the runtime's own, called on it unchanged (a Proxy, so members a runtime
 * adds, optional ones of the port included, pass through).
 * @module
 */
import { context as otelContext, trace, type Context } from '@opentelemetry/api';
import type { ExecEvent, ExecInput, SandboxRuntime, StartSandboxInput } from '../ports/sandbox-runtime.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { failSpan, inSpan } from '../telemetry/tracing.js';

export function tracedRuntime(runtime: SandboxRuntime, telemetry: Telemetry): SandboxRuntime {
  const exec = (sandboxId: string, input: ExecInput): AsyncIterable<ExecEvent> => tracedExec(runtime, telemetry, sandboxId, input, otelContext.active());
  const start = (input: StartSandboxInput) =>
    inSpan(telemetry.tracer, 'agent_platform.sandbox.start', { attributes: { 'agent_platform.sandbox.runtime': runtime.name } }, async (span) => {
      const started = await runtime.start(input);
      span.setAttribute('agent_platform.sandbox.id', started.id);
      return started;
    });
  return new Proxy(runtime, {
    get(target, property, receiver) {
      if (property === 'exec') return exec;
      if (property === 'start') return start;
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

async function* tracedExec(runtime: SandboxRuntime, telemetry: Telemetry, sandboxId: string, input: ExecInput, parent: Context): AsyncIterable<ExecEvent> {
  const span = telemetry.tracer.startSpan(
    'agent_platform.sandbox.exec',
    { attributes: { 'agent_platform.sandbox.runtime': runtime.name, 'agent_platform.sandbox.id': sandboxId } },
    parent,
  );
  let result: 'ok' | 'error' = 'error';
  try {
    for await (const event of otelContext.with(trace.setSpan(parent, span), () => runtime.exec(sandboxId, input))) {
      if (event.type === 'exit') {
        const exit = event.result;
        if (exit.exitCode !== null) span.setAttribute('process.exit.code', exit.exitCode);
        span.setAttribute('agent_platform.exec.timed_out', exit.timedOut);
        span.setAttribute('agent_platform.exec.cancelled', exit.cancelled);
        span.setAttribute('agent_platform.exec.truncated', exit.truncated);
        if (exit.exitCode === 0) result = 'ok';
      }
      yield event;
    }
  } catch (error) {
    failSpan(span, error);
    throw error;
  } finally {
    span.end();
    telemetry.metrics.sandboxCommand(runtime.name, result);
  }
}
