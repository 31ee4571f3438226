"""The hostile clients of bench/abuse.py and bench/hostile.py, by concern. For abuse.py:
the server watched (server_watch), the client's HTTP and sockets (client), the honest
players (honest), each attack's outcome (measurement), the attacker's process (attacker),
the attacks (http_attacks, socket_attacks) and the report (abuse_report). For hostile.py:
its client (probe_client), the attackers on the simulated Wi-Fi (wifi_attackers) and the
probes (probes, daily_probe). The scripts parse the arguments and run them."""
