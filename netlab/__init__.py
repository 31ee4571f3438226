"""Other machines on a network, simulated on this one, for the tests and the benches.

A games night has a laptop and phones on one Wi-Fi; an attack comes from a machine that is
not the server. Tests and benches must not send a single packet to this machine's real
network address or anywhere else, so those machines are network namespaces that the run
makes itself (``netlab.wifi``), and the test process is held to loopback and to them
(``netlab.guard``). The site never imports this package.
"""

from netlab.wifi import Host, SimulatedWifi, unavailable_reason

__all__ = ["Host", "SimulatedWifi", "unavailable_reason"]
