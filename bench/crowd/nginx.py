"""``--through-nginx``: the production stack's nginx in front of the bench's Daphnes, from
the project's own templates (``production.render``: deploy/nginx/boggle.conf inside
``nginx_main``'s nginx.conf), listening on a free loopback port, its pid, buffers and
configuration under the run's temporary directory; and the loopback source address each
player connects from, so that nginx's per-address limits stay as shipped."""

from __future__ import annotations

import ipaddress
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from production import render
from production.__main__ import NGINX_CANDIDATES

# nginx's peer as the Daphnes see it: the one proxy they trust, as bin/start --production's
# environment says (production.__main__.local_values).
TRUSTED_PROXIES = "127.0.0.1/32"
# Players' source addresses: 127.0.<1..254>.<1..254>, all loopback (127.0.0.0/8), never
# 127.0.0.1 (nginx's own address, the trusted proxy).
ADDRESSES_PER_BLOCK = 254
MAX_PLAYERS = ADDRESSES_PER_BLOCK * ADDRESSES_PER_BLOCK


def player_address(index: int) -> str:
    """The loopback address player ``index`` connects from: one address per player, as
    phones each on their own network."""
    if not 0 <= index < MAX_PLAYERS:
        raise ValueError(f"player {index}: at most {MAX_PLAYERS} loopback addresses")
    block, host = divmod(index, ADDRESSES_PER_BLOCK)
    address = ipaddress.IPv4Address(f"127.0.{block + 1}.{host + 1}")
    assert address.is_loopback
    return str(address)


def nginx_binary() -> str | None:
    """Debian's nginx, where bin/start --production looks for it."""
    for candidate in NGINX_CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    return None


@dataclass(frozen=True)
class NginxFiles:
    """nginx's configuration for the bench, written under ``run_dir``."""

    run_dir: Path
    main_file: Path
    site_file: Path
    port: int

    def command(self, binary: str) -> list[str]:
        """As bin/start --production runs it (production.__main__.write_configuration): in
        the foreground, its start-up errors in a file of the run's, not /var/log/nginx."""
        return [binary, "-c", str(self.main_file), "-e", str(self.run_dir / "error.log")]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def write_config(run_dir: Path, port: int, daphne_ports: tuple[int, ...]) -> NginxFiles:
    """The site (deploy/nginx/boggle.conf) and its nginx.conf, exactly as bin/start
    --production renders them, but listening on 127.0.0.1:``port`` with the bench's Daphnes
    as the upstream. As root nginx hands its workers to www-data (``nginx_main``), which
    must reach the buffers' folders: every folder above them gets o+x (lists nothing), as
    bin/start --production does for its run directory."""
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "nginx").mkdir(exist_ok=True)
    as_root = os.geteuid() == 0
    if as_root:
        for folder in (run_dir.parent, run_dir, run_dir / "nginx"):
            folder.chmod(folder.stat().st_mode | 0o001)
    site = render.Site(
        listen=f"127.0.0.1:{port}",
        daphne_ports=daphne_ports,
        # nginx's stdout: the bench's log of the process (Site._spawn), as supervisord's.
        access_log=render.STACK_ACCESS_LOG,
    )
    site_file = run_dir / "boggle-nginx.conf"
    site_file.write_text(render.nginx_site(site))
    main_file = run_dir / "nginx.conf"
    main_file.write_text(render.nginx_main(site_file, run_dir, as_root=as_root))
    return NginxFiles(run_dir, main_file, site_file, port)


def check_config(files: NginxFiles, binary: str) -> str | None:
    """nginx's own check of its configuration: None when it passes, else what it said."""
    checked = subprocess.run(
        [*files.command(binary), "-t", "-q"], capture_output=True, text=True, check=False
    )
    return None if checked.returncode == 0 else (checked.stderr or checked.stdout).strip()
