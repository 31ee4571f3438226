"""``python -m production``: the production stack on this machine, and its nginx site.

python -m production start [--daphnes N] [--workers N] [--port P] [--bind ADDRESS]
    what ``bin/start --production`` runs: PostgreSQL and Redis started if down
    (bin/services), an environment file for this machine (var/production/boggle.env,
    from deploy/boggle.env.example, kept and reused), the database set up, then nginx
    on PORT in front of N Daphnes on 127.0.0.1, the Celery workers and one beat under
    supervisord; Ctrl-C stops them all.
python -m production nginx --daphnes 3 --listen 80 --server-name boggle.example.org
    prints deploy/nginx/boggle.conf filled in, for /etc/nginx/sites-available/.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

from production import envfile, render
from production.render import REPO, Site
from web import network, start_banner

DEFAULT_RUN_DIR = REPO / "var" / "production"
# The database and Redis keys of bin/start --production on this machine's own services,
# named apart from anything else they hold (they may be shared).
LOCAL_DATABASE = "boggle_site"
LOCAL_DATABASE_SERVER = "postgresql://postgres@127.0.0.1:5432"
LOCAL_REDIS = "redis://127.0.0.1:6379/0"
LOCAL_REDIS_PREFIX = "boggle_site:"
NGINX_CANDIDATES = ("nginx", "/usr/sbin/nginx")


def fail(message: str) -> NoReturn:
    print(f"bin/start --production: {message}", file=sys.stderr)
    raise SystemExit(1)


def daphne_ports(first: int, count: int) -> tuple[int, ...]:
    return tuple(range(first, first + count))


def port_taken(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return True
    return False


def public_host(bind: str) -> str:
    """The address phones use: the bound one, or this machine's LAN address for 0.0.0.0."""
    if bind not in {"0.0.0.0", "::"}:
        return bind
    return os.environ.get("BOGGLE_LAN_HOST") or network.best_lan_address() or "127.0.0.1"


def local_values(bind: str, port: int, secret_key: str) -> dict[str, str]:
    """This machine's environment: its own services, plain HTTP on the Wi-Fi through nginx
    (the only trusted proxy), links to the address phones can open."""
    host = public_host(bind)
    url_host = f"[{host}]" if ":" in host else host
    origin = f"http://{url_host}:{port}"
    return {
        "DJANGO_SECRET_KEY": secret_key,
        "BOGGLE_PUBLIC_URL": origin,
        "DJANGO_ALLOWED_HOSTS": ",".join(dict.fromkeys([host, "localhost", "127.0.0.1"])),
        "DJANGO_CSRF_TRUSTED_ORIGINS": origin,
        "BOGGLE_TRUSTED_PROXIES": "127.0.0.1/32",
        "BOGGLE_PROXY_SSL_HEADER": "0",
        "BOGGLE_HTTPS": "0",
        "DATABASE_URL": f"{LOCAL_DATABASE_SERVER}/{LOCAL_DATABASE}",
        "REDIS_URL": LOCAL_REDIS,
        "BOGGLE_REDIS_PREFIX": LOCAL_REDIS_PREFIX,
        "BOGGLE_DICTIONARY_DIR": str(REPO / "var" / "dictionaries"),
        "BOGGLE_MEDIA_DIR": str(REPO / "var" / "media"),
        "BOGGLE_DEFINITIONS_DIR": str(REPO / "var" / "definitions"),
    }


# Keys that follow this machine's network and port: rewritten on every start.
FOLLOWS_THE_NETWORK = ("BOGGLE_PUBLIC_URL", "DJANGO_ALLOWED_HOSTS", "DJANGO_CSRF_TRUSTED_ORIGINS")


def local_env_file(run_dir: Path, bind: str, port: int) -> Path:
    """var/production/boggle.env: written from the template on the first start, then kept
    (edit it freely) except for the keys that follow the network."""
    path = run_dir / "boggle.env"
    if path.exists():
        current = path.read_text(encoding="utf-8")
        values = local_values(bind, port, envfile.parse(current).get("DJANGO_SECRET_KEY", ""))
        updated = envfile.with_values(current, {key: values[key] for key in FOLLOWS_THE_NETWORK})
    else:
        key_file = REPO / "var" / "secret_key"
        secret = key_file.read_text().strip() if key_file.exists() else ""
        values = local_values(bind, port, secret or secrets.token_urlsafe(50))
        template = render.ENV_TEMPLATE.read_text(encoding="utf-8")
        header = (
            "# Written by bin/start --production for this machine from deploy/boggle.env.example.\n"
        )
        updated = header + envfile.with_values(template, values)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        file.write(updated)
    return path


def ensure_local_database(values: dict[str, str]) -> None:
    """Create bin/start --production's own database on this machine's PostgreSQL."""
    if values.get("DATABASE_URL") != f"{LOCAL_DATABASE_SERVER}/{LOCAL_DATABASE}":
        return  # the operator's database: theirs to create
    import psycopg
    from psycopg import sql

    with psycopg.connect(f"{LOCAL_DATABASE_SERVER}/postgres", autocommit=True) as connection:
        exists = connection.execute(
            "select 1 from pg_database where datname = %s", [LOCAL_DATABASE]
        ).fetchone()
        if exists is None:
            connection.execute(sql.SQL("create database {}").format(sql.Identifier(LOCAL_DATABASE)))
            print(f"PostgreSQL database {LOCAL_DATABASE} created")


def set_up(values: dict[str, str]) -> None:
    """What README's "Set up or upgrade" lists, with the stack's environment."""
    env = {**os.environ, **values}
    python = sys.executable
    steps = [
        [python, "-m", "solver", "build"],
        [python, "manage.py", "migrate", "--noinput"],
        [python, "-m", "web.compile_messages"],
        [python, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
    ]
    for step in steps:
        if subprocess.run(step, cwd=REPO, env=env, check=False).returncode != 0:
            fail(f"{' '.join(step[1:])} failed (output above)")
    # Word meanings need Debian packages (README, "Definitions"): the site runs without.
    if subprocess.run([python, "-m", "meanings", "build"], cwd=REPO, env=env).returncode:
        print("definitions not built; the results link to Wiktionary only", file=sys.stderr)


def nginx_binary() -> str:
    for candidate in NGINX_CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    fail("nginx is not installed (Debian: apt-get install nginx; bin/start does it as root)")


def write_configuration(args: argparse.Namespace, run_dir: Path, env_file: Path) -> Path:
    """The nginx site and its nginx.conf, and supervisord.conf, in ``run_dir``; nginx has
    checked its own. Returns supervisord.conf."""
    nginx = nginx_binary()
    ports = daphne_ports(args.daphne_port, args.daphnes)
    site_file = run_dir / "boggle-nginx.conf"
    access_log = str(run_dir / "logs" / "nginx-access.log")
    site = Site(listen=listen_address(args), daphne_ports=ports, access_log=access_log)
    site_file.write_text(render.nginx_site(site))
    main_file = run_dir / "nginx.conf"
    main_file.write_text(render.nginx_main(site_file, run_dir, as_root=os.geteuid() == 0))
    # -e: nginx logs its start-up errors there, not in /var/log/nginx (root's).
    nginx_command = [nginx, "-c", str(main_file), "-e", str(run_dir / "logs" / "nginx-error.log")]
    checked = subprocess.run([*nginx_command, "-t", "-q"], capture_output=True, text=True)
    if checked.returncode != 0:
        fail(f"nginx refused its configuration:\n{checked.stderr}")
    conf = run_dir / "supervisord.conf"
    schedule = run_dir / "celerybeat-schedule"
    programs = render.stack_programs(env_file, ports, args.workers, nginx_command, schedule)
    conf.write_text(render.supervisord(programs, run_dir))
    return conf


def listen_address(args: argparse.Namespace) -> str:
    return f"[{args.bind}]:{args.port}" if ":" in args.bind else f"{args.bind}:{args.port}"


def print_banner(args: argparse.Namespace, values: dict[str, str]) -> None:
    """The address players open, with its QR code: the operator's public URL when their
    environment file is used, else this machine's address as bin/start prints it."""
    colour = sys.stdout.isatty()
    public_url = values.get("BOGGLE_PUBLIC_URL", "")
    if args.env_file is not None and public_url:
        url = public_url + "/"
        print(f"\nPlayers open {url} (or scan this):\n\n{start_banner.qr_text(url, colour)}")
    else:
        lan_host = values.get("BOGGLE_LAN_HOST", "")
        hint = "run bin/start --production without --bind"
        print(start_banner.banner(args.bind, str(args.port), lan_host, colour, hint))


def start(args: argparse.Namespace) -> None:
    run_dir: Path = args.run_dir.resolve()
    (run_dir / "logs").mkdir(parents=True, exist_ok=True)
    (run_dir / "nginx").mkdir(exist_ok=True)
    # nginx's workers (www-data when it starts as root) keep request bodies under nginx/:
    # through bin/start's private umask (027) they may still pass on the way (o+x reads
    # and lists nothing; the files stay private).
    for folder in (run_dir.parent, run_dir, run_dir / "nginx"):
        if not folder.stat().st_mode & 0o001:
            folder.chmod(folder.stat().st_mode | 0o001)
    nginx_binary()  # before anything is set up: a missing nginx is the likeliest failure
    ports = daphne_ports(args.daphne_port, args.daphnes)
    for host, port in [(args.bind, args.port), *(("127.0.0.1", p) for p in ports)]:
        if port_taken(host, port):
            fail(f"port {port} on {host} is in use (see --port and --daphne-port)")
    if subprocess.run([str(REPO / "bin" / "services")], check=False).returncode != 0:
        fail("PostgreSQL or Redis is not reachable on 127.0.0.1 (bin/services said why)")
    env_file = args.env_file or local_env_file(run_dir, args.bind, args.port)
    try:
        values = envfile.read(env_file)
    except (OSError, envfile.EnvFileError) as error:
        fail(str(error))
    ensure_local_database(values)
    set_up(values)
    conf = write_configuration(args, run_dir, env_file)

    print_banner(args, values)
    print(
        f"Production stack: nginx on {listen_address(args)} in front of {args.daphnes}"
        f" Daphne(s) on 127.0.0.1:{ports[0]}-{ports[-1]}, {args.workers} Celery worker(s)"
        f" and beat, under supervisord.\nEnvironment: {env_file}\nLogs: {run_dir / 'logs'}/"
        f"\nStatus: supervisorctl -c {conf} status\nCtrl-C stops them all (PostgreSQL and"
        " Redis, this machine's services, stay up).\n",
        flush=True,
    )
    supervisord = str(Path(sys.executable).parent / "supervisord")
    os.execv(supervisord, [supervisord, "-n", "-c", str(conf)])


def print_nginx(args: argparse.Namespace) -> None:
    site = Site(
        listen=args.listen,
        daphne_ports=daphne_ports(args.daphne_port, args.daphnes),
        server_name=args.server_name,
        forwarded_proto=args.forwarded_proto,
    )
    sys.stdout.write(render.nginx_site(site))


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m production",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("start", help="run the stack here (bin/start --production)")
    run.add_argument("--daphnes", type=int, default=2, help="Daphne processes (default 2)")
    run.add_argument("--workers", type=int, default=1, help="Celery workers (default 1)")
    run.add_argument(
        "--port",
        type=int,
        default=int(os.environ.get("PORT", "8000")),
        help="where nginx listens (default $PORT or 8000)",
    )
    run.add_argument("--bind", default="0.0.0.0", help="nginx's address (default: all)")
    run.add_argument("--daphne-port", type=int, default=8101, help="first Daphne's port")
    run.add_argument("--env-file", type=Path, help="use this environment file as it is")
    run.add_argument(
        "--run-dir",
        type=Path,
        default=DEFAULT_RUN_DIR,
        help="configuration, logs and pid files (default var/production)",
    )
    site = commands.add_parser("nginx", help="print the nginx site filled in")
    site.add_argument("--daphnes", type=int, default=2)
    site.add_argument("--daphne-port", type=int, default=8001)
    site.add_argument("--listen", default="80")
    site.add_argument("--server-name", default="_")
    site.add_argument(
        "--forwarded-proto",
        default="$scheme",
        help='"https" when a TLS proxy stands in front of nginx',
    )
    args = parser.parse_args(argv)
    if args.daphnes < 1 or getattr(args, "workers", 1) < 1:
        parser.error("--daphnes and --workers are at least 1")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    if args.command == "start":
        start(args)
    else:
        print_nginx(args)


if __name__ == "__main__":
    main()
