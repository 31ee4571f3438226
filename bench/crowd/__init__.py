"""The load client of bench/load.py, by concern: the site it starts (site, services,
processes), HTTP (http_client), a run's state and players (run, player_link, player_inbox,
player), the phases of a run (phases, window), the faults scenario (fault_record, faults)
and the figures (figures, report, fault_report). bench/load.py parses the arguments and
runs them."""
