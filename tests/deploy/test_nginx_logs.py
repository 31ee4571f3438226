"""nginx's logs rotate (issue 49, item 6): ``bin/start --production`` wrote them to files
under var/production/logs/ that grew for ever; it now sends them to nginx's stdout and
stderr, which supervisord writes to logs/nginx.log and rotates by size. An operator's
nginx logs to /var/log/nginx/, which Debian's own /etc/logrotate.d/nginx rotates (no
file of ours: a second rule for the same log is an error to logrotate)."""

from __future__ import annotations

import fnmatch
import re
import subprocess
from pathlib import Path

from supervisor.options import ServerOptions

from production import __main__ as production_main
from production.render import STACK_ACCESS_LOG, Site
from tests.deploy.tools import require_tool
from tests.photo_data import missing

DEBIAN_RULE = Path("/etc/logrotate.d/nginx")


def test_the_stacks_nginx_logs_go_to_the_supervisors_rotated_log(tmp_path: Path) -> None:
    require_tool("nginx")  # the stack's configuration is checked with nginx -t
    args = production_main.parse(["start", "--run-dir", str(tmp_path)])
    for folder in ("logs", "nginx"):
        (tmp_path / folder).mkdir()
    conf = production_main.write_configuration(
        args, tmp_path, tmp_path / "boggle.env", tmp_path, None, None
    )
    site = (tmp_path / "boggle-nginx.conf").read_text()
    assert re.findall(r"^\s*access_log (\S+)", site, re.MULTILINE) == [STACK_ACCESS_LOG]
    assert STACK_ACCESS_LOG == "/dev/stdout"
    main = (tmp_path / "nginx.conf").read_text()
    assert re.findall(r"^error_log (\S+)", main, re.MULTILINE) == ["stderr"]
    options = ServerOptions()
    options.realize(args=["-c", str(conf)])  # supervisord's own parser
    (nginx,) = [g.process_configs[0] for g in options.process_group_configs if g.name == "nginx"]
    assert nginx.redirect_stderr  # the error log joins the access log
    assert nginx.stdout_logfile_maxbytes > 0 and nginx.stdout_logfile_backups > 0


def test_debian_rotates_the_operators_access_log(tmp_path: Path) -> None:
    logrotate = require_tool("logrotate")
    if not DEBIAN_RULE.exists():
        missing(f"{DEBIAN_RULE} is not here (Debian's nginx-common installs it)")
    rule = DEBIAN_RULE.read_text()
    patterns = re.findall(r"^(/\S+)\s*\{", rule, re.MULTILINE)
    access_log = Site(listen="80", daphne_ports=(8001,)).access_log
    assert any(fnmatch.fnmatch(access_log, pattern) for pattern in patterns), patterns
    # nginx reopens its logs after the rotation (USR1, through its init script).
    assert re.search(r"postrotate\s+invoke-rc\.d nginx rotate", rule)
    # Debian's rule, moved to a folder of the test's, on a log by the site's name.
    folder = Path(access_log).parent
    log = tmp_path / Path(access_log).name
    log.write_text("a line\n")
    (tmp_path / "rule").write_text(rule.replace(f"{folder}/", f"{tmp_path}/"))
    done = subprocess.run(
        [
            logrotate,
            "--debug",
            "--force",
            "--state",
            str(tmp_path / "state"),
            str(tmp_path / "rule"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert f"rotating log {log}," in done.stdout + done.stderr, done.stdout + done.stderr
