"""Word meanings for the results, compiled offline: English from WordNet (then GCIDE for the
words WordNet lacks), Dutch and French from FreeDict's translation glosses. Plain Python
(no Django); ``definitions/`` adapts it.

``python -m meanings build`` compiles the sources the machine has (Debian ``wordnet-base``,
``dict-gcide``, ``dict-freedict-nld-eng``, ``dict-freedict-fra-eng``) into ``BOGGLE_DEFINITIONS_DIR``
(default ``var/definitions``); ``meanings.store.lookup`` reads them.
"""

from meanings.store import DefinitionStore, Entry, Sense, lookup

__all__ = ["DefinitionStore", "Entry", "Sense", "lookup"]
