// A real Prometheus (Debian's prometheus package) for the tests: on loopback, a free port, a data
// directory of its own, the scrape configuration a test gives it; asked through its HTTP API.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './grid.ts';
import { eventually } from './pages.ts';

export interface RunningPrometheus {
  url: string;
  /** An instant query's vector: each sample's labels and value (`/api/v1/query`). */
  query(promql: string): Promise<{ metric: Record<string, string>; value: number }[]>;
  output(): string;
  stop(): Promise<void>;
}

/** Start Prometheus with `config` (YAML) in `dir`; resolves once it is ready (GET /-/ready). */
export async function startPrometheus(config: string, dir: string): Promise<RunningPrometheus> {
  mkdirSync(join(dir, 'data'), { recursive: true });
  writeFileSync(join(dir, 'prometheus.yml'), config);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn('prometheus', [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c) => void (output = (output + c).slice(-20_000)));
  child.stderr!.on('data', (c) => void (output = (output + c).slice(-20_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    await eventually(async () => (await fetch(`${url}/-/ready`).catch(() => undefined))?.status === 200 || child.exitCode !== null, 'Prometheus did not get ready', 30_000);
    if (child.exitCode !== null) throw new Error(`Prometheus exited with ${child.exitCode}`);
  } catch (e) {
    await stop();
    throw new Error(`${(e as Error).message}:\n${output}`);
  }
  return {
    url,
    output: () => output,
    stop,
    async query(promql) {
      const answer = (await (await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`)).json()) as { status: string; error?: string; data: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] } };
      if (answer.status !== 'success') throw new Error(`Prometheus refused ${promql}: ${answer.error}`);
      if (answer.data.resultType !== 'vector') throw new Error(`${promql}: a ${answer.data.resultType}, not a vector`);
      return answer.data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
    },
  };
}
