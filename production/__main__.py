"""``python -m production``: the production stack on this machine, and its nginx site.

python -m production start [--daphnes N] [--workers N] [--port P] [--bind ADDRESS]
    what ``bin/start --production`` runs: PostgreSQL and Redis started if down
    (bin/services), an environment file for this machine (var/production/boggle.env,
    from deploy/boggle.env.example, kept and reused), the database set up (its own role
    and password), then nginx on PORT in front of N Daphnes on 127.0.0.1, the Celery
    workers, one beat and the stack's own Redis (a password, on 127.0.0.1:8100) under
    supervisord; Ctrl-C stops them all. Started as root, everything but nginx runs as
    the system user boggle (created if missing).
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
import urllib.parse
from pathlib import Path
from typing import Any, NoReturn

from production import envfile, local_services, render, site_user
from production.local_services import PrivateRedis
from production.render import REPO, Site
from production.site_user import Account
from web import network, start_banner

DEFAULT_RUN_DIR = REPO / "var" / "production"
# The database (and its role) of bin/start --production on this machine's PostgreSQL, and
# its Redis keys, named apart from anything else there.
LOCAL_DATABASE = "boggle_site"
LOCAL_REDIS_PREFIX = "boggle_site:"
# What older versions wrote: the machine's shared Redis, without a password.
SHARED_REDIS = "redis://127.0.0.1:6379/0"
SHARED_REDIS_PORT = 6379
# The stack's own Redis: next to the Daphnes' ports (8101 and up).
DEFAULT_REDIS_PORT = 8100
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


def local_values(
    bind: str, port: int, secret_key: str, database_url: str, redis_url: str
) -> dict[str, str]:
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
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "BOGGLE_REDIS_PREFIX": LOCAL_REDIS_PREFIX,
        "BOGGLE_DICTIONARY_DIR": str(REPO / "var" / "dictionaries"),
        "BOGGLE_MEDIA_DIR": str(REPO / "var" / "media"),
        "BOGGLE_DEFINITIONS_DIR": str(REPO / "var" / "definitions"),
    }


# Keys that follow this machine's network and port: rewritten on every start.
FOLLOWS_THE_NETWORK = ("BOGGLE_PUBLIC_URL", "DJANGO_ALLOWED_HOSTS", "DJANGO_CSRF_TRUSTED_ORIGINS")


def own_services(
    current: dict[str, str], database: str, redis_port: int
) -> tuple[str | None, str | None]:
    """DATABASE_URL and REDIS_URL for the stack's own role and Redis: kept (the Redis on
    ``redis_port``), or new with new passwords where an older version's file had the
    superuser and the shared Redis; None where the operator chose their own."""
    database_url = current.get("DATABASE_URL", "")
    if database_url == local_services.superuser_database_url(database):
        database_url = local_services.database_url(database, local_services.new_password())
    elif local_services.role_password(database_url, database) is None:
        database_url = ""
    redis_url = current.get("REDIS_URL", "")
    password = local_services.private_redis_password(redis_url)
    if redis_url == SHARED_REDIS:
        password = local_services.new_password()
    elif urllib.parse.urlsplit(redis_url).port == SHARED_REDIS_PORT:
        password = None  # the machine's own Redis with the operator's password
    redis_url = local_services.redis_url(redis_port, password) if password else ""
    return database_url or None, redis_url or None


def local_env_file(
    run_dir: Path,
    bind: str,
    port: int,
    account: Account | None = None,
    database: str = LOCAL_DATABASE,
    redis_port: int = DEFAULT_REDIS_PORT,
) -> Path:
    """var/production/boggle.env: written from the template on the first start, then kept
    (edit it freely) except for the keys that follow the network, and the stack's own
    database and Redis (an older version's superuser and shared Redis are replaced by a
    role and a Redis with passwords). 0640 root:boggle as root, else 0600."""
    path = run_dir / "boggle.env"
    if path.exists():
        current = path.read_text(encoding="utf-8")
        parsed = envfile.parse(current)
        database_url, redis_url = own_services(parsed, database, redis_port)
        values = local_values(
            bind, port, parsed.get("DJANGO_SECRET_KEY", ""), database_url or "", redis_url or ""
        )
        follows = [*FOLLOWS_THE_NETWORK]
        follows += ["DATABASE_URL"] if database_url else []
        follows += ["REDIS_URL"] if redis_url else []
        if database_url and database_url != parsed.get("DATABASE_URL"):
            print(f"{path}: DATABASE_URL connects as the role {database}, not the superuser")
        if redis_url and not parsed.get("REDIS_URL", "").startswith("redis://:"):
            print(f"{path}: REDIS_URL names the stack's own Redis, with a password")
        updated = envfile.with_values(current, {key: values[key] for key in follows})
    else:
        key_file = REPO / "var" / "secret_key"
        secret = key_file.read_text().strip() if key_file.exists() else ""
        values = local_values(
            bind,
            port,
            secret or secrets.token_urlsafe(50),
            local_services.database_url(database, local_services.new_password()),
            local_services.redis_url(redis_port, local_services.new_password()),
        )
        template = render.ENV_TEMPLATE.read_text(encoding="utf-8")
        header = (
            "# Written by bin/start --production for this machine from deploy/boggle.env.example.\n"
        )
        updated = header + envfile.with_values(template, values)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        file.write(updated)
    site_user.private_file(path, account)
    return path


def ensure_local_database(values: dict[str, str], database: str) -> None:
    """bin/start --production's own database and role on this machine's PostgreSQL, when
    the environment connects as that role (else the operator's: theirs to create)."""
    password = local_services.role_password(values.get("DATABASE_URL", ""), database)
    if password is None:
        return
    import psycopg

    try:
        local_services.ensure_database(database, password)
    except psycopg.Error as error:
        fail(f"could not set up the database {database} as postgres@127.0.0.1: {error}")


def private_redis(
    values: dict[str, str], run_dir: Path, state: Path, account: Account | None
) -> PrivateRedis | None:
    """The stack's own Redis when the environment names it (bin/start's own file), its
    configuration written (it holds the password: private like the environment file)."""
    url = values.get("REDIS_URL", "")
    password = local_services.private_redis_password(url)
    port = urllib.parse.urlsplit(url).port
    if password is None or port is None or port == SHARED_REDIS_PORT:
        return None
    redis = PrivateRedis(port, password, run_dir / "redis.conf", state / "redis")
    redis.data_dir.mkdir(mode=0o750, exist_ok=True)
    if account is not None:
        os.chown(redis.data_dir, account.uid, account.gid)
    fd = os.open(redis.conf, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        file.write(redis.config())
    site_user.private_file(redis.conf, account)
    return redis


def site_folders(values: dict[str, str]) -> list[Path]:
    """Where the site's processes write (the environment's folders, as settings reads them)."""
    defaults = {
        "BOGGLE_MEDIA_DIR": REPO / "var" / "media",
        "BOGGLE_DICTIONARY_DIR": REPO / "var" / "dictionaries",
        "BOGGLE_DEFINITIONS_DIR": REPO / "var" / "definitions",
    }
    return [Path(values.get(key) or default) for key, default in defaults.items()]


def prepare_site_user(
    account: Account, run_dir: Path, state: Path, values: dict[str, str], readable: list[Path]
) -> None:
    """As root: the checkout shared with the site's user, the folders it writes in its own,
    then checked as it (a clear failure now rather than processes failing one by one)."""
    site_user.share_checkout(account)
    writable = [state, *site_folders(values)]
    for folder in writable:
        ours = folder.is_relative_to(REPO / "var") or folder.is_relative_to(run_dir)
        site_user.hand_over(folder, account, ours=ours)
    try:
        site_user.check(account, readable, writable)
    except site_user.SiteUserError as error:
        fail(str(error))


def set_up(values: dict[str, str], account: Account | None, home: Path) -> None:
    """What docs/operations.md's "Set-up steps" lists, with the stack's environment. As root, what
    writes the site's data (dictionaries, the database, definitions) runs as the site's
    user; what writes into the checkout (translations, static files) stays root's, so the
    site's processes cannot change the code or the pages they serve."""
    env = {**os.environ, **values}
    as_operator: dict[str, Any] = {"env": env}
    as_site = as_operator
    if account is not None:
        names = {"HOME": str(home), "USER": account.name, "LOGNAME": account.name}
        as_site = {
            "env": env | names,
            "user": account.uid,
            "group": account.gid,
            "extra_groups": [],
        }
    python = sys.executable
    steps = [
        ([python, "-m", "solver", "build"], as_site),
        ([python, "manage.py", "migrate", "--noinput"], as_site),
        ([python, "-m", "web.compile_messages"], as_operator),
        ([python, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"], as_operator),
    ]
    for step, options in steps:
        if subprocess.run(step, cwd=REPO, check=False, **options).returncode != 0:
            fail(f"{' '.join(step[1:])} failed (output above)")
    # Word meanings need Debian packages (docs/dictionaries.md, "Word meanings"): the site runs without.
    meanings = [python, "-m", "meanings", "build"]
    if subprocess.run(meanings, cwd=REPO, check=False, **as_site).returncode:
        print("definitions not built; the results link to Wiktionary only", file=sys.stderr)


def nginx_binary() -> str:
    for candidate in NGINX_CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    fail("nginx is not installed (Debian: apt-get install nginx; bin/start does it as root)")


def write_configuration(
    args: argparse.Namespace,
    run_dir: Path,
    env_file: Path,
    state: Path,
    account: Account | None,
    redis: PrivateRedis | None,
) -> Path:
    """The nginx site and its nginx.conf, and supervisord.conf, in ``run_dir``; nginx has
    checked its own. Returns supervisord.conf."""
    nginx = nginx_binary()
    ports = daphne_ports(args.daphne_port, args.daphnes)
    site_file = run_dir / "boggle-nginx.conf"
    access_log = render.STACK_ACCESS_LOG  # to logs/nginx.log, which supervisord rotates
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
    schedule = state / "celerybeat-schedule"
    user = account.name if account is not None else None
    redis_command = redis.command() if redis is not None else None
    programs = render.stack_programs(
        env_file, ports, args.workers, nginx_command, schedule, user, redis_command
    )
    home = state if account is not None else None
    conf.write_text(render.supervisord(programs, run_dir, home))
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
    account = None
    if site_user.as_root():
        try:
            account = site_user.ensure()
        except site_user.SiteUserError as error:
            fail(str(error))
    # What the site's processes keep: beat's schedule, their Redis's data, their HOME.
    state = run_dir / "state"
    state.mkdir(mode=0o750, exist_ok=True)
    env_file = args.env_file or local_env_file(
        run_dir, args.bind, args.port, account, args.database, args.redis_port
    )
    try:
        values = envfile.read(env_file)
    except (OSError, envfile.EnvFileError) as error:
        fail(str(error))
    # The stack's own Redis is bin/start's environment's only: an operator's file is used as it is.
    redis = private_redis(values, run_dir, state, account) if args.env_file is None else None
    if redis is not None:
        if port_taken(local_services.REDIS_HOST, redis.port):
            fail(f"port {redis.port} on 127.0.0.1, the stack's Redis's, is in use (--redis-port)")
        try:
            redis.command()
        except FileNotFoundError as error:
            fail(str(error))
    ensure_local_database(values, args.database)
    if account is not None:
        readable = [env_file, *([redis.conf] if redis is not None else [])]
        prepare_site_user(account, run_dir, state, values, readable)
    if redis is None:
        set_up(values, account, state)
    else:
        uid, gid = (account.uid, account.gid) if account is not None else (None, None)
        try:
            with local_services.RunningRedis(redis, uid, gid):
                set_up(values, account, state)
        except RuntimeError as error:
            fail(str(error))
    if account is not None:
        site_user.share_checkout(account)  # the translations and static files just made
    conf = write_configuration(args, run_dir, env_file, state, account, redis)

    print_banner(args, values)
    own_redis = f", its own Redis on 127.0.0.1:{redis.port}" if redis is not None else ""
    as_user = f", all but nginx as the user {account.name}" if account is not None else ""
    stay_up = "this machine's PostgreSQL " + ("and Redis stay up" if redis is None else "stays up")
    print(
        f"Production stack: nginx on {listen_address(args)} in front of {args.daphnes}"
        f" Daphne(s) on 127.0.0.1:{ports[0]}-{ports[-1]}, {args.workers} Celery worker(s)"
        f" and beat{own_redis}, under supervisord{as_user}.\nEnvironment: {env_file}"
        f"\nLogs: {run_dir / 'logs'}/\nStatus: supervisorctl -c {conf} status\nCtrl-C stops"
        f" them all ({stay_up}).\n",
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
        "--redis-port",
        type=int,
        default=DEFAULT_REDIS_PORT,
        help=f"the stack's own Redis, on 127.0.0.1 (default {DEFAULT_REDIS_PORT})",
    )
    run.add_argument(
        "--database",
        default=LOCAL_DATABASE,
        help=f"its own database and role on this machine's PostgreSQL (default {LOCAL_DATABASE})",
    )
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
