"""Commands that answer questions about strategies and seats: ``compare``, ``balance``, ``run`` (an
experiment file), and ``report`` of runs already played."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

import samsim
from samsim.cli.app import (
    DEFAULT_CHUNK,
    RulesOption,
    SchedulerOption,
    ThreadsOption,
    WorkersOption,
    app,
    console,
    fail,
    load_rules,
    parse_specs,
    BackendOption,
    playing_on,
    print_written,
    quote,
    seating,
    status_console,
)
from samsim.cli.progress import Bar, run_with_bar, warm_up

#: What --populations default means (kept here so that --help imports nothing heavy; a test
#: keeps it equal to samsim.engine.populations.DEFAULT).
DEFAULT_POPULATIONS = "random,saver,greedy(temperature=4),lookahead,pool,mix"


@app.command(epilog="Example: samsim compare greedy undercut --players 4 --field greedy "
                    "--games 200000 --out results/compare1")
def compare(
    strategies: Annotated[list[str], typer.Argument(
        metavar="A B [C...]", help="Strategies to compare (specs, e.g. 'undercut(margin=2)'). "
                                   "Up to --players share every game (every placement of "
                                   "them); with more, every table-sized subset plays in "
                                   "every arrangement (the --pool design).",
        show_default=False)],
    players: Annotated[int, typer.Option(help="Number of players (seats), 3..6.")] = 4,
    field: Annotated[str, typer.Option(
        help="Strategy of the seats the compared ones leave free (fewer strategies than "
             "seats): a strategy's strength in a multiplayer game depends on who else "
             "plays.")] = "greedy",
    games: Annotated[int, typer.Option(
        help="Games to play (with --sequential: the most), rounded down to whole groups (at "
             "least 2; a verdict needs 30).")] = 100000,
    seed: Annotated[int, typer.Option(help="Seed (0..2**64-1): the same seed, the same "
                                           "games.")] = 7,
    deals: Annotated[str, typer.Option(
        help="A group plays every placement of the compared strategies. 'independent': each "
             "game has its own deal, so a difference is the strategies' over random deals "
             "(measured the more precise for this game); 'duplicate': a group's games share one "
             "deal, so the deal's luck cancels in the differences. Both estimate the same "
             "difference; the report measures the precision of the choice.")] = "independent",
    margin: Annotated[float, typer.Option(
        help="Equivalence margin, points of win rate: 'no difference larger than +-margin'.")] = 0.5,
    sequential: Annotated[bool, typer.Option(
        "--sequential", help="Stop as soon as the answer is clear: GSPRT of H0 edge <= 0 "
                             "against H1 edge >= --edge points, alpha = beta = 0.05.")] = False,
    edge: Annotated[float, typer.Option(help="With --sequential: the edge (points of win rate) "
                                             "H1 claims.")] = 1.0,
    batch_games: Annotated[int, typer.Option(
        help="With --sequential: games between looks at the data.")] = 20000,
    rules: RulesOption = None,
    threads: ThreadsOption = None,
    scheduler: SchedulerOption = None,
    workers: WorkersOption = None,
    backend: BackendOption = "cpu",
    out: Annotated[Optional[Path], typer.Option(
        metavar="DIR", help="Also write compare.md, pairs.png, pairs.csv and ranking.csv "
                            "here.")] = None,
):
    """Is A better than B? Balanced groups, paired differences, simultaneous intervals, verdicts."""
    from samsim.analysis import compare as comparing
    from samsim.analysis.compare_report import print_comparison, write_comparison
    from samsim.analysis.report import data_note
    from samsim.engine.registry import parse_spec
    from samsim.runs.results import prepare_output_dir

    data = load_rules(rules)
    try:
        specs = [parse_spec(s) for text in strategies for s in parse_specs(text, "strategies")]
        field = parse_spec(field)
        if not data.min_players <= players <= data.max_players:
            raise ValueError(f"players must be {data.min_players}..{data.max_players}, got {players}")
        if games < 1 or batch_games < 1:
            raise ValueError("--games and --batch-games must be positive")
        if not 0 < margin < 100 or not 0 < edge < 100:
            raise ValueError("--margin and --edge are points of win rate, between 0 and 100")
        if deals not in ("duplicate", "independent"):
            raise ValueError(f"--deals must be duplicate or independent, got {deals!r}")
        comparing.design(specs, players, field, deals == "duplicate")  # before --out is made
        if out is not None:
            prepare_output_dir(out)
        with playing_on(scheduler, workers, threads, backend):
            result = _compare(specs, players, games, seed, field, data, threads, margin,
                              edge if sequential else None, batch_games, deals == "duplicate")
        written = write_comparison(result, out, data_note(data)) if out is not None else []
    except (ValueError, OSError) as error:
        fail(str(error))
    except KeyboardInterrupt:
        print("samsim: compare interrupted; a comparison is reported only whole, so nothing was "
              "written", file=sys.stderr)
        raise typer.Exit(130)
    print_comparison(result, console, data_note(data))
    print_written(written)


@app.command(epilog="Example: samsim balance --players 3,4,5,6 --games 40000 --strategy greedy "
                    "--out results/balance")
def balance(
    players: Annotated[str, typer.Option(help="Player counts, comma-separated.")] = "3,4,5,6",
    games: Annotated[int, typer.Option(help="Games per player count.")] = 20000,
    seed: Annotated[int, typer.Option(help="Seed (0..2**64-1).")] = 7,
    strategy: Annotated[Optional[str], typer.Option(
        help="Strategy of every seat (the same everywhere, so a seat effect is the game's). "
             "Default: greedy.")] = None,
    pool: Annotated[Optional[str], typer.Option(
        help="Instead: a pool of strategies, comma-separated, seated by a balanced design "
             "(every strategy in every seat, every pair meeting, equally often).")] = None,
    populations: Annotated[Optional[str], typer.Option(
        help="Instead: several populations, comma-separated, each a strategy in every seat "
             "(e.g. greedy), 'pool' (the library seated by the balanced design) or a TOML file "
             "of [[population]] tables; a seat effect is robust only if all of them show it. "
             f"'default': {DEFAULT_POPULATIONS}.")] = None,
    margin: Annotated[float, typer.Option(
        help="With --populations: a seat within this many points of win rate of 1/N under "
             "every population is called fair (none found).")] = 2.0,
    fix: Annotated[bool, typer.Option(
        "--fix", help="Also search the seat rules that make each player count fair (tie-breaker "
                      "start, price-tie order, coins per seat) under every population, confirm "
                      "the best on fresh deals with --games games, and write it as a data file "
                      "for --rules (DIR/report/fair.toml). Implies --populations default unless "
                      "given.")] = False,
    fix_games: Annotated[int, typer.Option(
        help="With --fix: games per candidate rule and population in the search.")] = 5000,
    rules: RulesOption = None,
    threads: ThreadsOption = None,
    scheduler: SchedulerOption = None,
    workers: WorkersOption = None,
    backend: BackendOption = "cpu",
    out: Annotated[Optional[Path], typer.Option(
        metavar="DIR", help="Keep the games in DIR/<N>p/ (run folders) and write the report to "
                            "DIR/report/ (balance.md and PNG plots).")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Finish interrupted runs in --out.")]
        = False,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace the runs in --out.")]
        = False,
):
    """Is the game fair at 3-6 players? Seat win rates, ties, money, market, tiles: ranked."""
    from samsim.analysis.balance_report import print_balance, write_balance
    from samsim.analysis.report import data_note
    from samsim.engine.registry import parse_spec

    data = load_rules(rules)
    try:
        counts = _player_counts(players, data, "--players")
        if sum(x is not None for x in (strategy, pool, populations)) > 1:
            raise ValueError("give one of --strategy (every seat), --pool (seated by a balanced "
                             "design) or --populations (several of either)")
        if not 0 < margin < 100:
            raise ValueError(f"--margin must be between 0 and 100 points of win rate, got "
                             f"{margin:g}")
        if fix and (strategy is not None or pool is not None):
            raise ValueError("--fix goes with --populations (a fair rule must be fair whoever "
                             "plays): drop --strategy/--pool, or name them in --populations")
        if fix_games < 1:
            raise ValueError(f"--fix-games must be positive, got {fix_games}")
        if fix and populations is None:
            populations = "default"
        if populations is not None:
            from samsim.engine.populations import DEFAULT, parse_populations

            chosen = parse_populations(DEFAULT if populations.strip() == "default" else populations)
            with playing_on(scheduler, workers, threads, backend):
                _balance_populations(counts, games, seed, chosen, margin, data, threads, out,
                                     resume, overwrite, fix_games=fix_games if fix else None)
            return
        strategy = "greedy" if strategy is None else strategy
        members = parse_specs(pool, "--pool") if pool is not None else None
        strategy = parse_spec(strategy).spec()  # as labels write it (e.g. greedy@1a2b3c4d)
        members = [parse_spec(s).spec() for s in members] if members is not None else None
        _check_balance_run(games, out, resume, overwrite)
        with playing_on(scheduler, workers, threads, backend):
            measured = _balance(counts, games, seed, strategy, members, data, threads, out,
                                resume, overwrite)
        who = f"pool {', '.join(members)} seated by a balanced design" if members else \
            f"{strategy} in every seat"
        header = [f"{who}; {games:,} games per player count, seed {seed}", data_note(data),
                  f"samsim {samsim.__version__}"]
        written = write_balance(measured, header, Path(out) / "report") if out is not None else []
    except ValueError as error:
        fail(str(error))
    except KeyboardInterrupt:
        print(f"samsim: interrupted; the games played are kept in {out}: add --resume to the same "
              f"command to finish" if out is not None else "samsim: interrupted", file=sys.stderr)
        raise typer.Exit(130)
    print_balance(measured, header, console)
    print_written(written)


def _compare(specs, players, games, seed, field, data, threads, margin, edge, batch_games,
             duplicate):
    """``samsim.analysis.compare.compare`` with a progress bar (``edge``: sequential, else None)."""
    from samsim.analysis import compare as comparing
    from samsim.stats import inference

    plan = comparing.design(specs, players, field, duplicate)
    played = comparing.games_played(games, plan)
    if played != games:
        status_console.print(f"games: {played:,}{' at most' if edge else ''}, whole groups of "
                             f"{plan.size:,} ({games:,} asked)", markup=False)
    with Bar("comparing (at most)" if edge else "comparing", played,
              [s.info for s in plan.strategies]) as bar:
        warm_up(players, seed, data, threads, plan.strategies[-1])
        bar.begin()
        result = comparing.compare(
            specs, players, games, seed, field, data, threads, margin / 100,
            inference.SPRT(theta1=edge / 100) if edge else None, batch_games, duplicate,
            progress=bar.advance)
        bar.progress.update(bar.task, total=result.games)  # a sequential test may stop early
        return result


def _balance_populations(counts, games, seed, chosen, margin, data, threads, out, resume,
                         overwrite, report=None, header=None, fix_games=None):
    """``samsim balance --populations``: each population's runs under ``out/<name>/``, one
    progress bar over all of them, the verdicts across them, the report in ``report`` (default
    ``out/report``); with ``fix_games``, the search for fair seat rules (``out/fix/``) too."""
    from samsim.analysis import balance as balancing
    from samsim.analysis import fix as fixing
    from samsim.analysis.balance_report import print_populations, write_populations
    from samsim.analysis.report import data_note

    _check_balance_run(games, out, resume, overwrite)
    plans = [balancing.lineups(counts, games=games, population=p) for p in chosen]
    with _balance_bar([seats for plan in plans for seats in plan], seed, data, threads) as bar:
        measured, robust = balancing.run_populations(
            chosen, counts, games, seed, margin, data, threads, out, resume, overwrite,
            status=lambda name, n: bar.next_run(f"{name}, {n} players"),
            progress=bar.run_progress)
    fixes, fair = None, None
    if fix_games is not None:
        total = fixing.games_planned(chosen, counts, fix_games, games)
        with Bar("fix (at most)", total, [i for plan in plans for _, s, _ in plan for i in s.infos]
                 ) as bar:
            bar.begin()
            import numpy as np

            before = [fixing.Step(fixing.given_rule(data, r.players), r.wins,
                                  np.array(r.games, dtype=float)) for r in robust]
            fixes, fair = fixing.run(data, chosen, counts, fix_games, games, seed, margin, out,
                                     threads, resume, overwrite, status=bar.next_run,
                                     progress=bar.run_progress, before=before)
    who = f"{len(chosen)} populations; {games:,} games per population and player count"
    if fixes:
        who += (f"; the fix: {fix_games:,} games per candidate rule and population, "
                f"{sum(f.games_played for f in fixes):,} games in all")
    lines = header(who) if header else [f"{who}, seed {seed}", data_note(data),
                                        f"samsim {samsim.__version__}"]
    if report is None and out is not None:
        report = Path(out) / "report"
    written = write_populations(measured, robust, chosen, lines, report, fixes, fair, data) \
        if report else []
    print_populations(robust, chosen, lines, console, fixes)
    if fair is not None and not report:
        console.print("The fair seat rules (add --out DIR to keep them as a data file for "
                      "--rules):", markup=False)
        console.print(fair[fair.index("[seats]"):] if "[seats]" in fair else "(none needed)",
                      markup=False)
    print_written(written)


def _balance(counts, games, seed, strategy, members, data, threads, out, resume, overwrite):
    """``samsim.analysis.balance.run`` with one progress bar over all player counts."""
    from samsim.analysis import balance as balancing

    plan = balancing.lineups(counts, strategy, members, games)
    with _balance_bar(plan, seed, data, threads) as bar:
        return balancing.run(counts, games, seed, strategy, members, data, threads, out, resume,
                             overwrite, status=lambda n: bar.next_run(f"{n} players"),
                             progress=bar.run_progress)


def _check_balance_run(games, out, resume, overwrite) -> None:
    from samsim.analysis.balance import check_games

    check_games(games)
    if (resume or overwrite) and out is None:
        raise ValueError(f"{'--resume' if resume else '--overwrite'} needs --out DIR")
    if out is not None:
        from samsim.runs.results import prepare_output_dir
        prepare_output_dir(out)


@contextlib.contextmanager
def _balance_bar(plan, seed, data, threads):
    """One progress bar over every run of ``plan`` ((players, line-up, games) triples), the engine
    loaded before its clock starts."""
    with Bar("balance", sum(total for *_, total in plan),
             [info for _, seats, _ in plan for info in seats.infos]) as bar:
        warm_up(plan[0][0], seed, data, threads, plan[0][1])
        bar.begin()
        yield bar


@app.command(epilog="Example: samsim tune weighted --players 4 --against "
                    "lookahead,holiday,undercut,greedy --budget 2000000 --out results/tune1")
def tune(
    strategy: Annotated[str, typer.Argument(
        metavar="STRATEGY", help="The strategy to tune, as a spec: its parameters start from the "
                                 "spec's values (e.g. 'weighted(w_future=-1)').",
        show_default=False)],
    out: Annotated[Path, typer.Option(
        metavar="DIR", help="The tune folder: every generation is saved there as it ends (so "
                            "--resume goes on), the report in DIR/report/.",
        show_default=False)],
    players: Annotated[int, typer.Option(help="Number of players (seats), 3..6.")] = 4,
    against: Annotated[Optional[str], typer.Option(
        help="The other seats: a strategy in every one, or a comma-separated pool seated by "
             "its balanced design around the tuned seat.")] = None,
    self_play: Annotated[bool, typer.Option(
        "--self-play", help="The other seats: copies of the optimiser's current centre, "
                            "generation after generation (instead of --against).")] = False,
    budget: Annotated[int, typer.Option(
        help="Games to play in all, every candidate's and the centre's.")] = 1000000,
    params: Annotated[Optional[str], typer.Option(
        help="The parameters to tune, comma-separated (default: all; the others keep the "
             "spec's values).")] = None,
    games: Annotated[int, typer.Option(
        help="Games per candidate in the first generation, rounded up to whole balanced "
             "groups; doubled whenever a generation's candidates are too close to rank.")] = 2000,
    max_games: Annotated[Optional[int], typer.Option(
        help="Most games per candidate in a generation (default: 16 x --games).")] = None,
    popsize: Annotated[Optional[int], typer.Option(
        help="Candidates per generation (default: CMA-ES's, 4 + 3 ln(parameters)).")] = None,
    sigma: Annotated[float, typer.Option(
        help="Starting step size, as a share of each parameter's range.")] = 0.1,
    generations: Annotated[Optional[int], typer.Option(
        help="Stop after this many generations (default: when the budget is spent or CMA-ES "
             "converges).")] = None,
    seed: Annotated[int, typer.Option(help="Seed (0..2**64-1): the same seed, the same "
                                           "tune.")] = 7,
    confirm_games: Annotated[int, typer.Option(
        help="Games of the final confirmation (samsim compare of the tuned strategy, its start "
             "and --reference on fresh deals); 0 skips it.")] = 100000,
    reference: Annotated[str, typer.Option(
        help="The strategy the tuned one is confirmed against, beside its start.")] = "lookahead",
    confirm_players: Annotated[Optional[str], typer.Option(
        help="Player counts to confirm at, comma-separated (default: --players): is what is "
             "best at 4 players good at 6?")] = None,
    rules: RulesOption = None,
    threads: ThreadsOption = None,
    scheduler: SchedulerOption = None,
    workers: WorkersOption = None,
    backend: BackendOption = "cpu",
    resume: Annotated[bool, typer.Option("--resume", help="Go on with the tune in --out.")]
        = False,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace the tune in --out.")]
        = False,
):
    """Tune a strategy's parameters by simulation (CMA-ES on common deals) to win against a field."""
    from samsim.analysis import tune as tuning
    from samsim.analysis.report import data_note
    from samsim.analysis.tune_report import print_tuning, write_tuning

    data = load_rules(rules)
    try:
        if confirm_games < 0:
            raise ValueError(f"--confirm-games must be 0 (no confirmation) or more, got "
                             f"{confirm_games}")
        counts = _player_counts(confirm_players, data, "--confirm-players") \
            if confirm_players is not None else [players]
        field = tuple(parse_specs(against, "--against")) if against is not None else ()
        setup = tuning.Setup(
            strategy, players, budget, field, self_play,
            tuple(parse_specs(params, "--params")) if params is not None else None, games,
            max_games, popsize, sigma, seed, generations).check(data)
        with playing_on(scheduler, workers, threads, backend):
            result = _tune(setup, data, out, resume, overwrite, threads)
            confirmations = [_confirm(result, confirm_games, reference, data, threads, n)
                             for n in (counts if confirm_games else [])]
        written = write_tuning(result, confirmations, out / "report", data_note(data))
    except (ValueError, OSError) as error:
        fail(str(error))
    except KeyboardInterrupt:
        print(f"samsim: tune interrupted; the generations played are kept in {out}: add --resume "
              f"to the same command to go on", file=sys.stderr)
        raise typer.Exit(130)
    print_tuning(result, confirmations, console, data_note(data))
    print_written(written)


def _tune(setup, data, out, resume, overwrite, threads):
    """``samsim.analysis.tune.tune`` with a progress bar that names the generation and the
    centre's win rate, and a line per generation."""
    from samsim.analysis import tune as tuning
    from samsim.engine.registry import parse_spec

    infos = [parse_spec(s).info for s in [setup.start, *setup.field]]
    with Bar("tuning", setup.budget, infos) as bar:
        warm_up(setup.players, setup.seed, data, threads, setup.start)

        def ended(g):
            text = (f"generation {g.index}: centre {g.centre_rate:.1%} ({g.centre_low:.1%}–"
                    f"{g.centre_high:.1%}), {g.deals:,} games a candidate")
            bar.progress.console.print(text, markup=False, highlight=False)
            bar.next_run(f"generation {g.index + 1} (centre {g.centre_rate:.1%})")
            bar.found_next = False

        result = tuning.tune(setup, data, out, resume, overwrite, threads, bar.advance, ended,
                             found=lambda history: bar.skip(sum(g.games for g in history)))
        bar.progress.update(bar.task, total=result.games)  # the budget's rest fits no generation
        return result


def _confirm(result, games, reference, data, threads, players):
    from samsim.analysis import compare as comparing
    from samsim.analysis import tune as tuning

    contestants, field = tuning.confirmation(result, reference)
    plan = comparing.design(contestants, players, field)
    with Bar(f"confirming at {players} players", comparing.games_played(games, plan),
             [s.info for s in plan.strategies]) as bar:
        bar.begin()
        return tuning.confirm(result, games, reference, data=data, threads=threads,
                              progress=bar.advance, players=players)


def _player_counts(text: str, data, option: str) -> list[int]:
    try:
        counts = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        counts = []
    if not counts or any(not data.min_players <= n <= data.max_players for n in counts):
        raise ValueError(f"{option}: give player counts {data.min_players}..{data.max_players}, "
                         f"comma-separated, e.g. 3,4,5,6")
    if len(set(counts)) < len(counts):
        raise ValueError(f"{option}: each player count once ({text!r} names one twice)")
    return sorted(counts)


@app.command(epilog="Example: samsim report results/run1 --out results/run1/report")
def report(
    paths: Annotated[list[Path], typer.Argument(
        metavar="PATH...", help="Result files or run folders (written by samsim simulate).",
        show_default=False)],
    out: Annotated[Optional[Path], typer.Option(
        metavar="DIR", help="Also write report.md and PNG plots (win rate per seat, final "
                            "score per strategy, money over rounds if recorded) here.")] = None,
    partial: Annotated[bool, typer.Option(
        "--partial", help="Report a run that is not whole (interrupted, or chunks missing) for "
                          "what it holds, marked PARTIAL; without it such a run is refused.")]
        = False,
):
    """Win rates per strategy, seat and player count, with 95% intervals, and score spreads."""
    from samsim.analysis.report import load_report, print_report, write_report

    try:
        result = load_report(paths, partial)
        if out is not None:
            written = write_report(result, out)
    except (ValueError, OSError) as error:
        fail(str(error))
    print_report(result, console)
    if out is not None:
        console.print(f"report: {written[0]} (+ {len(written) - 1} plots)", markup=False)


@app.command("run", epilog="Example: samsim run experiments/showdown.toml")
def run_experiment(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="Experiment file (TOML).",
                                         show_default=False)],
    results_dir: Annotated[Path, typer.Option(
        "--results", metavar="DIR", help="Where results/NAME/ goes.")] = Path("results"),
    threads: ThreadsOption = None,
    scheduler: SchedulerOption = None,
    workers: WorkersOption = None,
    backend: BackendOption = "cpu",
    resume: Annotated[bool, typer.Option("--resume", help="Finish an interrupted run.")] = False,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace earlier results.")]
    = False,
):
    """Run an experiment file: its runs go to results/NAME/<N>p/, its report to
    results/NAME/report/."""
    from samsim.runs import experiment

    try:
        exp = experiment.load(file)
        data = load_rules(exp.rules)
    except (ValueError, OSError) as error:
        fail(str(error))
    kinds = {"simulate": _run_simulate, "balance": _run_balance, "compare": _run_compare,
             "sensitivity": _run_sensitivity, "tune": _run_tune}
    try:
        with playing_on(scheduler, workers, threads, backend):  # may refuse: describe after it
            if exp.description:
                console.print(exp.description, markup=False)
            kinds[exp.kind](exp, data, results_dir, threads, resume, overwrite)
    except (ValueError, OSError) as error:
        fail(str(error))
    except KeyboardInterrupt:
        print("samsim: interrupted", file=sys.stderr)
        raise typer.Exit(130)


def _experiment_header(exp, data, games: str) -> list[str]:
    from samsim.analysis.report import data_note

    return [f"experiment {exp.path.name}: {games}, seed {exp.seed}", data_note(data),
            f"samsim {samsim.__version__}; run again: samsim run {quote(exp.path.as_posix())}"]


def _run_balance(exp, data, results_dir, threads, resume, overwrite) -> None:
    from samsim.analysis.balance_report import print_balance, write_balance

    if exp.populations:
        _balance_populations(exp.players, exp.games, exp.seed, exp.populations, exp.margin, data,
                             threads, Path(results_dir) / exp.name, resume, overwrite,
                             report=exp.report_dir(results_dir),
                             header=lambda who: _experiment_header(exp, data, who),
                             fix_games=exp.fix_games)
        return
    measured = _balance(exp.players, exp.games, exp.seed, exp.strategy, exp.pool, data, threads,
                        Path(results_dir) / exp.name, resume, overwrite)
    who = f"pool {', '.join(exp.pool)}" if exp.pool else f"{exp.strategy} in every seat"
    header = _experiment_header(exp, data, f"{who}, {exp.games:,} games per player count")
    written = write_balance(measured, header, exp.report_dir(results_dir))
    print_balance(measured, header, console)
    print_written(written)


def _run_compare(exp, data, results_dir, threads, resume, overwrite) -> None:
    from samsim.analysis.compare_report import print_comparison, write_comparison
    from samsim.analysis.report import data_note

    result = _compare(exp.strategies, exp.players[0], exp.games, exp.seed, exp.field_spec, data,
                      threads, exp.margin, exp.edge if exp.sequential else None, exp.batch_games,
                      exp.deals == "duplicate")
    written = write_comparison(result, exp.report_dir(results_dir), data_note(data))
    print_comparison(result, console, data_note(data))
    print_written(written)


def _run_tune(exp, data, results_dir, threads, resume, overwrite) -> None:
    from samsim.analysis import tune as tuning
    from samsim.analysis.report import data_note
    from samsim.analysis.tune_report import print_tuning, write_tuning

    setup = tuning.Setup(exp.strategy, exp.players[0], exp.games, seed=exp.seed,
                         **exp.tune).check(data)
    result = _tune(setup, data, exp.run_dir(results_dir, setup.players), resume, overwrite,
                   threads)
    confirmations = [_confirm(result, exp.confirm_games, exp.reference, data, threads, n)
                     for n in ((exp.confirm_players or [setup.players]) if exp.confirm_games
                               else [])]
    note = f"{data_note(data)}; experiment {exp.path.name}: samsim run {quote(exp.path.as_posix())}"
    written = write_tuning(result, confirmations, exp.report_dir(results_dir), note)
    print_tuning(result, confirmations, console, note)
    print_written(written)


def _run_sensitivity(exp, data, results_dir, threads, resume, overwrite) -> None:
    from samsim.analysis import sensitivity

    files = [("base", exp.rules), *((p.stem, p) for p in exp.variants)]
    with status_console.status("") as status:
        variants = sensitivity.run(files, exp.strategies, exp.players[0], exp.field_spec,
                                   exp.games, exp.balance_games, exp.seed,
                                   exp.deals == "duplicate", threads,
                                   status=lambda name: status.update(f"data: {name}..."))
    field = f" (field {exp.field_spec})" if len(exp.strategies) < exp.players[0] else ""
    header = _experiment_header(
        exp, data, f"{', '.join(exp.strategies)} compared at {exp.players[0]} players"
                   f"{field}, {exp.games:,} games per data file; seats: "
                   f"{exp.field_spec} everywhere, {exp.balance_games:,} games")
    written = sensitivity.write(variants, header, exp.report_dir(results_dir))
    for status, text in sensitivity.conclusions(variants):
        console.print(f"{status:<9}  {text}", markup=False)
    print_written(written)


def _run_simulate(exp, data, results_dir, threads, resume, overwrite) -> None:
    from samsim.analysis.report import load_report, print_report, write_report
    from samsim.engine.designs import whole_passes

    record = tuple(exp.record)
    runs = []
    for players in exp.players:
        seats = seating(players, ",".join(exp.strategies) if exp.strategies else None,
                         ",".join(exp.pool) if exp.pool else None)
        games = whole_passes(exp.games, seats)
        if games != exp.games:
            status_console.print(f"{players} players: games rounded up to {games:,}: whole "
                                 f"passes through the pool's balanced design of "
                                 f"{len(seats.seatings):,} seatings", markup=False)
        out = exp.run_dir(results_dir, players)
        run_with_bar(games, players, exp.seed, data, seats,
             exp.chunk_size or DEFAULT_CHUNK, threads, out, resume, overwrite, record,
             label=f"{players} players")
        runs.append(out)
    result = load_report(runs)
    written = write_report(result, exp.report_dir(results_dir))
    print_report(result, console)
    print_written(written)
