"""Scenarios: a readable JSON position plus scripted decisions, run on either engine.

A scenario file (format: ``docs/scenarios.md``) names things the way the rulebook does, so that a
rule test reads like the rulebook's worked example it encodes. This package is the only place that
turns those names into the canonical integer position of ``docs/protocol.md``, so both engines stay
free of parsing.

    load      a file read into the canonical position and what to check
    names     rulebook names resolved (chips, cards, tiles, nations, seats); errors name the field
    possible  positions no game could reach, refused (flags, tiles beyond the box, tie-breaker)
    expect    what a scenario expects: the end, checkpoints after given rounds, events, a refusal
    check     run on an engine, and what it expects checked
    log       events by name, and the log told in English
"""

from samsim.scenario.check import (ENGINES, ScenarioResult, check_expectations, run_and_check,
                                   run_scenario)
from samsim.scenario.load import Scenario, load_scenario
from samsim.scenario.log import EVENT_CODE, EVENT_FIELDS, EVENT_KINDS, describe_events
from samsim.scenario.names import ScenarioError

__all__ = ["ENGINES", "EVENT_CODE", "EVENT_FIELDS", "EVENT_KINDS", "Scenario", "ScenarioError",
           "ScenarioResult", "check_expectations", "describe_events", "load_scenario",
           "run_and_check", "run_scenario"]
