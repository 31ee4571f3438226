"""Offline practice's word lists: how big each dictionary's list is to download and keep,
and how long a browser takes to get it ready and to solve a board with it.

    python bench/offline_words.py [--runs 5] [--lists english,dutch,french,english-common]

For each list (compiled by ``solver.dictionaries``; Dutch and French need Debian's wdutch
and wfrench): its words, the plain list's bytes (a word a line), the compact text's
(``solver.compact``) and the gzipped bytes the server sends. Then in Chromium (Debian's,
through Playwright), on a page served from loopback with the site's own modules
(``static/js/offline/``), ``--runs`` times each: the download and reading of the text, and
the building of the trie (``parseWordList``), cold (nothing cached), and the trie's size;
then the solver on rolled boards of each size. Twice: at the machine's speed, and with
Chromium's CPU slowed 4x (DevTools' "mid-tier phone"). Prints the load average before and
after; times are the median and the largest of the runs, in ms.
"""

from __future__ import annotations

import argparse
import gzip
import io
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import BinaryIO

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from solver import compact, dictionaries, roll  # noqa: E402
from solver.dice import default_dice_set  # noqa: E402
from solver.rulebook import rulebook  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
BOARDS_PER_SIZE = 5

MEASURE = """async ({url, boards, rules}) => {
  const { parseWordList } = await import("/static/js/offline/wordlist.js");
  const { solveBoard } = await import("/static/js/offline/solver.js");
  const started = performance.now();
  const response = await fetch(url, { cache: "no-store" });
  const text = await response.text();
  const fetched = performance.now();
  const list = parseWordList(text);
  const parsed = performance.now();
  const solves = {};
  for (const board of boards) {
    const size = rules.sizes[String(board.rows)];
    const before = performance.now();
    const words = solveBoard(board, list.trie, size.min_length, size.points).length;
    (solves[board.rows] ||= []).push({ ms: performance.now() - before, words });
  }
  const t = list.trie;
  const bytes = t.letter.byteLength + t.firstChild.byteLength + t.nextSibling.byteLength + t.terminal.byteLength;
  return { fetchMs: fetched - started, parseMs: parsed - fetched, nodes: t.size, words: t.words, bytes, solves };
}"""


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


class Handler(SimpleHTTPRequestHandler):
    """Static files from the served folder; ``.txt`` word lists gzipped, as the site sends them."""

    def log_message(self, *args) -> None:
        pass

    def send_head(self) -> BinaryIO | None:
        path = Path(self.translate_path(self.path))
        if path.suffix != ".gz":
            return super().send_head()
        data = path.read_bytes()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        return io.BytesIO(data)


def serve(folder: Path) -> tuple[ThreadingHTTPServer, str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Handler, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def sizes_of(name: str, folder: Path) -> dict:
    word_list = dictionaries.load(name)
    words = list(word_list.trie.keys())
    started = time.perf_counter()
    text = compact.encode(
        words, {"dictionary": name, "words": len(words), "rules": word_list.rules.to_dict()}
    )
    data = gzip.compress(text.encode(), compresslevel=9, mtime=0)
    encode_ms = (time.perf_counter() - started) * 1000
    (folder / f"{name}.gz").write_bytes(data)
    language = dictionaries.get_named_list(name).language
    return {
        "words": len(words),
        "plain": sum(len(word.encode()) + 1 for word in words),
        "compact": len(text.encode()),
        "gzip": len(data),
        "encode_ms": encode_ms,
        "language": language,
    }


def boards_for(language: str) -> list[dict]:
    rng = random.Random("offline-bench")
    boards = []
    for side in (4, 5, 6):
        for _ in range(BOARDS_PER_SIZE):
            board = roll(default_dice_set(side, side, language), seed=rng.randrange(2**32))
            boards.append({"rows": board.rows, "cols": board.cols, "faces": list(board.faces)})
    return boards


def figures(values: list[float]) -> str:
    return f"{statistics.median(values):,.0f} / {max(values):,.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--lists", default="english,english-common,dutch,french")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    print(f"offline word lists; load average {load_average()}")
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        (folder / "static").symlink_to(REPO / "static")
        (folder / "index.html").write_text("<!doctype html><title>bench</title>")
        server, url = serve(folder)
        names = [name for name in args.lists.split(",") if name]
        sizes = {}
        print("\n| list | words | plain | compact | gzip (sent) | encode (server, once) |")
        print("| --- | --- | --- | --- | --- | --- |")
        for name in names:
            try:
                sizes[name] = sizes_of(name, folder)
            except Exception as error:  # a Debian list not installed: say so, go on
                print(f"| {name} | not available: {error} | | | | |")
                continue
            row = sizes[name]
            print(
                f"| {name} | {row['words']:,} | {row['plain'] / 1e6:.2f} MB | {row['compact'] / 1e6:.2f} MB "
                f"| {row['gzip'] / 1e3:,.0f} kB | {row['encode_ms']:,.0f} ms |"
            )
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=["--no-sandbox"]
            )
            for slowdown in (1, 4):
                print(
                    f"\nChromium, CPU slowed {slowdown}x; {args.runs} cold runs each; median / max ms"
                )
                print(
                    "| list | download + read | build the trie | trie | 4x4 solve | 5x5 solve | 6x6 solve |"
                )
                print("| --- | --- | --- | --- | --- | --- | --- |")
                for name, row in sizes.items():
                    fetches: list[float] = []
                    parses: list[float] = []
                    solves: dict[int, list[float]] = {4: [], 5: [], 6: []}
                    nodes = bytes_ = 0
                    for _ in range(args.runs):
                        context = browser.new_context()
                        page = context.new_page()
                        page.goto(url + "/index.html")
                        cdp = context.new_cdp_session(page)
                        cdp.send("Emulation.setCPUThrottlingRate", {"rate": slowdown})
                        answer = page.evaluate(
                            MEASURE,
                            {
                                "url": f"/{name}.gz",
                                "boards": boards_for(row["language"]),
                                "rules": rulebook(row["language"]),
                            },
                        )
                        context.close()
                        assert answer["words"] == row["words"], answer
                        fetches.append(answer["fetchMs"])
                        parses.append(answer["parseMs"])
                        nodes, bytes_ = answer["nodes"], answer["bytes"]
                        for side, runs in answer["solves"].items():
                            solves[int(side)] += [run["ms"] for run in runs]
                    print(
                        f"| {name} | {figures(fetches)} | {figures(parses)} | {nodes:,} nodes, {bytes_ / 1e6:.1f} MB "
                        f"| {figures(solves[4])} | {figures(solves[5])} | {figures(solves[6])} |"
                    )
            browser.close()
        server.shutdown()
    print(f"\nload average {load_average()}")


if __name__ == "__main__":
    main()
