"""``pitch-bot signup``, ``login``, ``logout``, ``whoami``, ``bots``, ``new-bot``,
``presets``, ``rotate-token``, ``tokens``, ``submit``, ``versions``, ``logs``, ``stop`` and
``pin``: an author's account and hosted bots from the terminal, through the arena's web API.

Passwords are read from the terminal (no echo) or, with ``--password-stdin``, from standard
input: never from the command line, where other users see it in the process list.  A
secret the arena shows once (a bot's token) goes to standard output alone, for scripts."""

from __future__ import annotations

import getpass
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from pitch_sdk.arena_api import credentials
from pitch_sdk.arena_api.client import ApiError, ArenaApi
from pitch_sdk.packages.archive import PackageError, pack

UrlOption = Annotated[str | None, typer.Option("--arena", envvar="PITCH_ARENA_URL",
                                               help="The arena's web address (default: the one you logged in to).")]
PasswordStdin = Annotated[bool, typer.Option("--password-stdin", help="Read the password from standard input.")]
BotName = Annotated[str, typer.Argument(help="One of your bots, by name.")]
PresetsOption = Annotated[list[str] | None, typer.Option(
    "--preset", "-p", help="A preset the bot plays (repeatable; see `pitch-bot variants`); default: every preset.")]


def fail(message: str, code: int = 1) -> NoReturn:
    """End the command with a one-line error on standard error and exit status ``code``."""
    Console(stderr=True, highlight=False).print(Text.assemble(("error: ", "red"), message))
    raise typer.Exit(code)


@contextmanager
def _answering() -> Iterator[None]:
    """Turn the arena's refusal (or its absence) into a one-line error and exit status 1."""
    try:
        yield
    except ApiError as refused:
        fail(str(refused))


def _say(message: str) -> None:
    Console(stderr=True, highlight=False).print(Text(message))


def arena_client(url: str | None = None, needs_login: bool = True) -> ArenaApi:
    """The arena's API as the saved login (or ``PITCH_API_TOKEN``) reaches it; exit 2 when a
    command needs a login and there is none."""
    saved = credentials.load()
    if needs_login and not saved.token:
        fail("not logged in: run `pitch-bot login` (or `pitch-bot signup`), or set PITCH_API_TOKEN", 2)
    return ArenaApi(url or saved.url, saved.token)


def _password(from_stdin: bool, confirm: bool = False) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\n")
    password = getpass.getpass("password: ")
    if confirm and getpass.getpass("again: ") != password:
        fail("the passwords differ", 2)
    return password


def _remember(api: ArenaApi, answer: dict[str, str]) -> None:
    path = credentials.save(credentials.Credentials(api.url, answer["token"], answer["account"]))
    _say(f"logged in to {api.url} as {answer['account']} (API token saved in {path}, readable by you only)")


def signup(name: Annotated[str, typer.Argument(help="Your account name: 3-32 letters, digits, '_', '.', '-'.")],
           url: UrlOption = None, password_stdin: PasswordStdin = False) -> None:
    """Open an account on the arena and log in to it."""
    api = arena_client(url, needs_login=False)
    with _answering():
        answer = api.sign_up(name, _password(password_stdin, confirm=not password_stdin))
    _remember(api, answer)


def login(name: Annotated[str, typer.Argument(help="Your account name.")], url: UrlOption = None,
          password_stdin: PasswordStdin = False) -> None:
    """Log in: mint an API token for this machine and save it."""
    api = arena_client(url, needs_login=False)
    with _answering():
        answer = api.log_in(name, _password(password_stdin))
    _remember(api, answer)


def logout() -> None:
    """Forget the saved API token (revoke it on the account page or with `pitch-bot tokens revoke`)."""
    _say("logged out" if credentials.forget() else "not logged in")


def whoami(url: UrlOption = None) -> None:
    """The account you are logged in as, and its bots."""
    api = arena_client(url)
    with _answering():
        me = api.me()
    typer.echo(f"{me['account']} at {api.url}: {len(me['bots'])} bot(s), {len(me['tokens'])} API token(s)")


def _plays(presets: list[str]) -> str:
    """What a bot's choice of presets means, in words."""
    return ", ".join(presets) if presets else "every preset"


def bots(url: UrlOption = None) -> None:
    """Your bots."""
    with _answering():
        found = arena_client(url).me()["bots"]
    table = Table("bot", "id", "state", "plays", "description")
    for bot in found:  # an arena from before the choice sends no presets: every one
        table.add_row(Text(bot["name"]), bot["bot_id"], "disabled" if bot["disabled"] else "enabled",
                      _plays(bot.get("presets", [])), Text(bot["description"]))
    Console(highlight=False).print(table)


def new_bot(name: Annotated[str, typer.Argument(help="The new bot's name (unique in the arena).")],
            description: Annotated[str, typer.Option(help="What the bot is.")] = "",
            chosen: PresetsOption = None, url: UrlOption = None) -> None:
    """Create a bot of your account and print its token (this once only)."""
    with _answering():
        created = arena_client(url).create_bot(name, description, chosen)
    _say(f"created {created['name']} ({created['bot_id']}), playing {_plays(chosen or [])}; its token follows "
         "(not shown again): PITCH_BOT_TOKEN=<token> pitch-bot run mybot.py:MyBot --referee HOST:PORT")
    typer.echo(created["token"])


def presets(bot: BotName,
            chosen: Annotated[list[str] | None, typer.Argument(
                metavar="[PRESET]...", help="The presets it plays, in order (see `pitch-bot variants`); "
                                            "none: show them.")] = None,
            every: Annotated[bool, typer.Option("--all", help="Play every preset again.")] = False,
            url: UrlOption = None) -> None:
    """Show or choose the presets your bot plays.  The automatic SPRT of its new versions
    plays the first of them with two sides (else the arena's preset), and the arena's
    ladders and automatic round robins of the others leave it out; by default, and with
    --all, it plays every preset."""
    if chosen and every:
        fail("name PRESETs to choose, or --all to play every preset, not both")
    api = arena_client(url)
    with _answering():
        found = api.set_presets(bot, chosen or []) if chosen or every else api.presets(bot)
    typer.echo(f"{bot} plays: {_plays(found)}")


def rotate_token(name: BotName, url: UrlOption = None) -> None:
    """Give one of your bots a new token and print it; the old one stops working."""
    with _answering():
        token = arena_client(url).rotate_bot_token(name)
    _say(f"new token for {name} (the old one no longer connects):")
    typer.echo(token)


tokens_app = typer.Typer(help="Your personal API tokens.", no_args_is_help=True)


@tokens_app.command("list")
def list_tokens(url: UrlOption = None) -> None:
    """Your API tokens (never the tokens themselves)."""
    with _answering():
        found = arena_client(url).me()["tokens"]
    table = Table("id", "label", "created", "last used")
    for token in found:
        table.add_row(token["id"], Text(token["label"]), f"{token['created']:.0f}",
                      "never" if token["last_used"] is None else f"{token['last_used']:.0f}")
    Console(highlight=False).print(table)


@tokens_app.command("new")
def new_token(label: Annotated[str, typer.Argument(help="What the token is for (e.g. 'ci').")],
              url: UrlOption = None) -> None:
    """Mint an API token and print it (this once only)."""
    with _answering():
        minted = arena_client(url).mint_token(label)
    _say(f"API token {minted['id']} ({label}); it follows and is not shown again:")
    typer.echo(minted["token"])


@tokens_app.command("revoke")
def revoke_token(token_id: Annotated[str, typer.Argument(help="The token's id (see `pitch-bot tokens list`).")],
                 url: UrlOption = None) -> None:
    """Revoke one of your API tokens."""
    with _answering():
        arena_client(url).revoke_token(token_id)
    _say(f"revoked {token_id}")


def submit(path: Annotated[Path, typer.Argument(help="The bot: a .tar.gz package, a folder with pitch-bot.json, "
                                                     "or a Python file (with --class).")],
           bot: Annotated[str, typer.Option("--bot", help="Which of your bots this is a version of.")],
           version: Annotated[str | None, typer.Option(help="The version's name (default: v1, v2, ...).")] = None,
           bot_class: Annotated[str | None, typer.Option("--class", help="The Bot class of a Python file or "
                                                                         "folder without a manifest.")] = None,
           url: UrlOption = None) -> None:
    """Send a bot package for the arena to host, as a new version of one of your bots."""
    try:
        data = path.read_bytes() if path.is_file() and path.name.endswith((".tar.gz", ".tgz")) \
            else pack(path, bot_class)
    except (PackageError, OSError) as refused:
        fail(f"cannot pack {path}: {refused}", 2)
    with _answering():
        answer = arena_client(url).submit(bot, data, version)
    typer.echo(f"{bot} {answer['version']}: {answer['status']} (sha256 {answer['sha256'][:16]}…); "
               f"follow it with `pitch-bot versions {bot}`")


def versions(bot: BotName, url: UrlOption = None,
             reports: Annotated[bool, typer.Option("--reports", help="Show every version's compliance check "
                                                                     "report (by default: the rejected ones')."
                                                   )] = False) -> None:
    """Your bot's hosted versions, how each is doing, and why a rejected one failed the
    arena's compliance check (its report, below the table)."""
    with _answering():
        found = arena_client(url).versions(bot)
    table = Table("version", "status", "detail", "restarts", "sha256")
    for item in found:
        table.add_row(Text(item["version"]), item["status"], Text(item["detail"] or ""), str(item["restarts"]),
                      item["sha256"][:16])
    console = Console(highlight=False)
    console.print(table)
    for item in found:  # an arena from before the check sends no report
        if item.get("report") and (reports or item["status"] == "rejected"):
            console.print(Text(f"compliance check of {item['version']}:", style="bold"))
            console.print(Text(item["report"]))


def logs(bot: BotName, version: Annotated[str, typer.Argument(help="The version.")], url: UrlOption = None) -> None:
    """The last kilobytes of a hosted version's standard output and error."""
    with _answering():
        typer.echo(arena_client(url).log(bot, version), nl=False)


def stop(bot: BotName, version: Annotated[str, typer.Argument(help="The version.")], url: UrlOption = None) -> None:
    """Stop hosting a version of your bot."""
    with _answering():
        arena_client(url).stop(bot, version)
    _say(f"{bot} {version}: stopped")


def pin(bot: BotName,
        version: Annotated[str | None, typer.Argument(help="The version to play as the bot's current one.")] = None,
        unpin: Annotated[bool, typer.Option("--unpin", help="Let the newest version that may play be current "
                                                           "again.")] = False,
        url: UrlOption = None) -> None:
    """Pin a version of your bot as its current one, whatever versions come after it (its
    leaderboard row, the seats that name the bot alone, the version its host keeps
    running), or --unpin."""
    if (version is None) == (not unpin):
        fail("name a VERSION to pin, or --unpin")
    with _answering():
        answer = arena_client(url).pin(bot, None if unpin else version)
    pinned = f"pinned {answer['pinned']}" if answer["pinned"] else "unpinned"
    _say(f"{bot}: {pinned}; current version {answer['current'] or '(none yet)'}")


def add_commands(app: typer.Typer) -> None:
    """Add the account and hosting commands to ``pitch-bot``."""
    for command in (signup, login, logout, whoami, bots, presets, submit, versions, logs, stop, pin):
        app.command()(command)
    app.command("new-bot")(new_bot)
    app.command("rotate-token")(rotate_token)
    app.add_typer(tokens_app, name="tokens")
