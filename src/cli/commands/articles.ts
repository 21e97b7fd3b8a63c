import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import { importArticles } from '../../catalog/import-articles.ts';
import { withStore } from '../context.ts';
import { println } from '../output.ts';

function size(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}

export function registerArticleCommands(program: Command): void {
  const articles = program.command('articles').description('the article catalog');

  articles
    .command('import <file>')
    .description('load articles from a CSV file (codice_articolo;descrizione;unita_misura); existing codes are updated')
    .action(async (file: string) => {
      await withStore(async (store) => {
        // The bar is for a person watching; in a pipe or a log file it would only be noise.
        const bar = process.stderr.isTTY
          ? new cliProgress.SingleBar(
            { stream: process.stderr, format: 'importing |{bar}| {percentage}% | {done} of {size}', hideCursor: true },
            cliProgress.Presets.shades_classic,
          )
          : undefined;
        let started = false;
        try {
          const { rows } = await importArticles(store, file, {
            onProgress(read, total) {
              if (!bar) return;
              const payload = { done: size(read), size: size(total) };
              if (!started) {
                bar.start(Math.max(total, 1), read, payload);
                started = true;
              } else {
                bar.update(read, payload);
              }
            },
          });
          bar?.stop();
          started = false;
          println(`imported ${rows} article rows from ${file}; the catalog holds ${await store.countArticles()} articles`);
        } finally {
          if (started) bar?.stop();
        }
      });
    });
}
