import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import { importArticles } from '../../catalog/import-articles.ts';
import { importArticleXrefs } from '../../catalog/import-xrefs.ts';
import { WITHDRAW_AUDIT, withdrawArticles, type WithdrawAction } from '../../catalog/withdraw.ts';
import { audit } from '../../operators/audit.ts';
import { withStore } from '../context.ts';
import { printJson, println } from '../output.ts';

function size(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}

export function registerArticleCommands(program: Command): void {
  const articles = program.command('articles').description('the article catalog');

  articles
    .command('import <file>')
    .description('load articles from a CSV file (codice_articolo;descrizione;unita_misura, optional gtin); existing codes are updated (deactivated ones stay deactivated)')
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

  articles
    .command('xref')
    .description('a customer\'s own article codes (UBL BuyersItemIdentification) and ours')
    .command('import <code> <file>')
    .description('load a customer\'s cross-references from a CSV file (codice_cliente_articolo;codice_articolo); existing ones are updated')
    .option('--json', 'print JSON')
    .action(async (code: string, file: string, opts: { json?: boolean }) => {
      await withStore(async (store) => {
        const { rows, total } = await importArticleXrefs(store, code, file);
        await audit(store, 'cli', 'articoli.xref_importa', 'cliente', code, { rows });
        if (opts.json) printJson({ codice_cliente: code, rows, total });
        else println(`imported ${rows} cross-references for ${code} from ${file}; the customer has ${total}`);
      });
    });

  const withdraw: [WithdrawAction, string, string, string][] = [
    ['deactivate', 'take articles out of service: orders for them are refused as no longer available, they are no longer suggested; registered orders keep them', 'deactivated', 'already deactivated'],
    ['activate', 'bring deactivated articles back into service', 'active again', 'already active'],
    ['remove', 'delete articles from the catalog (registered orders keep their lines, without the description in exports: deactivate keeps it)', 'removed', ''],
  ];
  for (const [action, description, done, already] of withdraw) {
    articles
      .command(`${action} <codes...>`)
      .description(description)
      .option('--json', 'print JSON')
      .action(async (codes: string[], opts: { json?: boolean }) => {
        await withStore(async (store) => {
          const { changed, unchanged } = await withdrawArticles(store, action, codes);
          for (const code of changed) await audit(store, 'cli', WITHDRAW_AUDIT[action], 'articolo', code);
          if (opts.json) {
            printJson({ changed, unchanged, articles: await store.countArticles() });
            return;
          }
          for (const code of changed) println(`${code}: ${done}`);
          for (const code of unchanged) println(`${code}: ${already}`);
          println(`the catalog holds ${await store.countArticles()} articles in service`);
        });
      });
  }
}
