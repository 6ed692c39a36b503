"""The parts of ``bench/chaos.py``: the fleet it runs (:mod:`.arena`), the faults it injects
(:mod:`.faults`), what it watches while they happen (:mod:`.watch`), the logs it reads
(:mod:`.logs`) and the checks it makes afterwards (:mod:`.checks`)."""
