"""deploy/'s files as operators install them and bin/start --production runs them: the
environment template passes Django's deployment checks, the nginx site renders into a
configuration nginx accepts, the supervisor's configuration runs each process through the
units' own command, and environment files are read as systemd reads them."""

from __future__ import annotations

import os
import re
import secrets
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from supervisor.options import ServerOptions

from boggle_site import env as env_settings
from production import envfile, render, run
from production.render import REPO, Site

UNITS = REPO / "deploy" / "systemd"


def clean_environment() -> dict[str, str]:
    """This process's environment without anything that sets the site's mode or secrets."""
    return {
        key: value
        for key, value in os.environ.items()
        if key not in env_settings.MODE_VARIABLES and not key.startswith(("DJANGO_", "BOGGLE_"))
    }


def test_the_environment_template_passes_the_deployment_checks() -> None:
    values = envfile.read(render.ENV_TEMPLATE)
    assert values["DJANGO_SECRET_KEY"] == "CHANGE"  # nobody ships a usable key
    values["DJANGO_SECRET_KEY"] = secrets.token_urlsafe(50)  # as the template says to
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=REPO,
        env={**clean_environment(), **values},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_the_template_without_its_secret_key_fails_to_start() -> None:
    values = envfile.read(render.ENV_TEMPLATE)
    del values["DJANGO_SECRET_KEY"]
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=REPO,
        env={**clean_environment(), **values},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set" in result.stderr


def test_an_environment_file_is_read_as_systemd_reads_it() -> None:
    text = (
        "# a comment\n\n; another\nA=1\n B = two words \nC=\"quoted value\"\nD='single'\n"
        "E=\nF=a=b\n"
    )
    assert envfile.parse(text) == {
        "A": "1",
        "B": "two words",
        "C": "quoted value",
        "D": "single",
        "E": "",
        "F": "a=b",
    }


@pytest.mark.parametrize("line", ["just words", "1A=x", "A-B=x", "=x", "export A=1"])
def test_a_line_that_is_not_key_equals_value_is_refused_with_its_number(line: str) -> None:
    with pytest.raises(envfile.EnvFileError, match="line 2"):
        envfile.parse(f"OK=1\n{line}\n", "boggle.env")


def test_values_are_replaced_in_place_with_the_comments_kept_and_new_keys_added() -> None:
    template = "# about A\nA=old\n# about B\nB=keep\n# C=commented\n"
    written = envfile.with_values(template, {"A": "new", "C": "added"})
    assert written == "# about A\nA=new\n# about B\nB=keep\n# C=commented\n\nC=added\n"
    assert envfile.parse(written) == {"A": "new", "B": "keep", "C": "added"}


def test_the_nginx_site_lists_every_daphne_and_leaves_no_field_unfilled() -> None:
    text = render.nginx_site(Site(listen="0.0.0.0:8000", daphne_ports=(8101, 8102, 8103)))
    servers = re.findall(r"server 127\.0\.0\.1:(\d+) max_fails=0;", text)
    assert servers == ["8101", "8102", "8103"] * 2  # requests round-robin; rooms by code
    assert re.search(r"upstream boggle_rooms \{[^}]*hash \$boggle_room consistent;", text)
    assert re.search(r"location /ws/ \{[^}]*proxy_pass http://boggle_rooms;", text)
    assert "${" not in text
    # nginx's workers share which Daphnes are down (else a worker answers 502 on its own).
    assert re.search(r"upstream boggle_daphnes \{[^}]*zone boggle_daphnes ", text)
    assert "listen 0.0.0.0:8000;" in text
    # The client's own X-Forwarded-Proto is overwritten, X-Forwarded-For appended to.
    assert "proxy_set_header X-Forwarded-Proto $scheme;" in text
    assert "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;" in text


def test_a_field_without_a_value_is_an_error_not_a_half_rendered_file() -> None:
    with pytest.raises(KeyError, match="BOGGLE_MISSING"):
        render.fill("listen ${BOGGLE_MISSING}; proxy_pass $scheme;", {})


@pytest.mark.skipif(
    shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists(),
    reason="nginx is not installed (bin/test installs it as root)",
)
def test_nginx_accepts_the_rendered_configuration(tmp_path: Path) -> None:
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    (tmp_path / "logs").mkdir()
    (tmp_path / "nginx").mkdir()
    site_file = tmp_path / "site.conf"
    site = Site(
        listen="127.0.0.1:8000", daphne_ports=(8101, 8102), access_log=str(tmp_path / "a.log")
    )
    site_file.write_text(render.nginx_site(site))
    main_file = tmp_path / "nginx.conf"
    main_file.write_text(render.nginx_main(site_file, tmp_path, as_root=os.geteuid() == 0))
    result = subprocess.run(
        [nginx, "-t", "-c", str(main_file), "-e", str(tmp_path / "logs" / "error.log")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def test_the_supervisor_runs_every_process_through_the_units_own_command(tmp_path: Path) -> None:
    env_file = tmp_path / "boggle.env"
    schedule = tmp_path / "beat-schedule"
    nginx = ["/usr/sbin/nginx", "-c", "x"]
    programs = render.stack_programs(env_file, (8101, 8102), 2, nginx, schedule)
    (tmp_path / "logs").mkdir()
    conf = tmp_path / "supervisord.conf"
    conf.write_text(render.supervisord(programs, tmp_path))
    options = ServerOptions()
    options.realize(args=["-c", str(conf)])  # supervisord's own parser
    commands = {
        group.name: group.process_configs[0].command for group in options.process_group_configs
    }
    assert set(commands) == {"nginx", "daphne-8101", "daphne-8102", "worker-1", "worker-2", "beat"}
    prefix = [sys.executable, "-m", "production.run", "--env-file", str(env_file)]
    assert shlex.split(commands["daphne-8102"]) == [*prefix, "daphne", "8102"]
    assert shlex.split(commands["worker-2"]) == [*prefix, "worker", "2"]
    assert shlex.split(commands["beat"]) == [*prefix, "beat", str(schedule)]
    for group in options.process_group_configs:
        assert group.process_configs[0].autorestart  # a killed process comes back


def unit_commands() -> dict[str, list[str]]:
    commands = {}
    for unit in sorted(UNITS.glob("*.service")):
        exec_start = re.search(r"^ExecStart=(.+)$", unit.read_text(), re.MULTILINE)
        assert exec_start is not None, unit.name
        commands[unit.name] = shlex.split(exec_start.group(1))
    return commands


def test_each_unit_runs_production_run_with_a_role_it_knows() -> None:
    commands = unit_commands()
    assert set(commands) == {
        "boggle-daphne@.service",
        "boggle-worker@.service",
        "boggle-beat.service",
    }
    for name, argv in commands.items():
        assert argv[1:3] == ["-m", "production.run"], name
        role, argument = argv[3], (argv[4] if len(argv) > 4 else None)
        argument = {"%i": "8001"}.get(argument or "", argument)
        built = run.command(role, argument, python="python")
        assert built[:2] == ["python", "-m"], name
    for unit in UNITS.glob("*.service"):
        assert "EnvironmentFile=/etc/boggle/boggle.env" in unit.read_text(), unit.name


def test_the_run_commands_bind_daphne_to_loopback_and_take_no_proxy_headers() -> None:
    daphne = run.command("daphne", "8001", python="python")
    assert daphne[daphne.index("-b") + 1] == "127.0.0.1"
    assert "--proxy-headers" not in daphne
    with pytest.raises(ValueError, match="port"):
        run.command("daphne", None)
    with pytest.raises(ValueError, match="unknown process"):
        run.command("shell", None)
