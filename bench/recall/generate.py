"""Deterministic synthetic multi-session conversations, with questions, answers and evidence ids.

``python -m bench.recall.generate --seed 1 --conversations 3 -o FILE`` writes the JSON format that
bench/README.md documents (the recall benchmark and the QA harness both read it). The same seed
always gives the same bytes.

Each conversation is dozens of chat sessions spread over months between two (or more) friends,
mostly small talk, with planted storylines: static facts, facts that change (moves, new jobs, a new
car), preferences, negations, events told with relative dates ("last Saturday", "two weeks ago")
whose answer is the absolute date, and exact identifiers (order numbers, ticket ids, URLs, IPs,
emails, codes). Every storyline has several phrasings, some spread over two turns, some only
implied; questions are worded differently from the turns that answer them, as a person would ask.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from random import Random
from typing import Any

FORMAT = "tessera-recall/1"
QUESTION_TYPES = (
    "fact",
    "changed_fact",
    "preference",
    "negation",
    "temporal",
    "identifier",
    "event",
)
DEFAULT_SPEAKERS = ("Maya", "Jon")
# Conversations after the first draw their speakers from here, so names vary across the set.
NAME_POOL = (
    "Priya",
    "Tom",
    "Lena",
    "Marcus",
    "Ade",
    "Sofia",
    "Hana",
    "Diego",
    "Ruth",
    "Kofi",
    "Elif",
    "Wes",
    "Nora",
    "Tariq",
    "Ines",
    "Callie",
    "Owen",
    "Mira",
)
SUBJECT_SHARE = 0.6  # storylines about the passport's subject; the rest are about the others
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

Slots = dict[str, str]
Template = tuple[str, ...]  # "o:..." said by the owner, "x:..." by another; "o*:"/"x*:" evidence


# --- storyline kinds ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Kind:
    """A fact, preference, negation, event or identifier storyline: values, phrasings, questions."""

    name: str
    values: Callable[[Random, str], Slots]  # (rng, owner) -> slots, "v" is the answer
    say: tuple[Template, ...]
    ask: tuple[str, ...]
    when: tuple[str, ...] = ()  # for events: temporal question templates
    echo: tuple[str, ...] = ()  # later passing mentions, never evidence


@dataclass(frozen=True)
class _Change:
    """A fact that changes once: an old value, then an announcement and a settling-in line."""

    name: str
    pool: tuple[str, ...]
    old: tuple[Template, ...]
    announce: tuple[Template, ...]
    settle: tuple[Template, ...]
    ask_now: tuple[str, ...]
    ask_before: tuple[str, ...]
    echo_old: tuple[str, ...] = ()
    echo_new: tuple[str, ...] = ()


def _pick(*values: Slots | str) -> Callable[[Random, str], Slots]:
    """Values drawn from a fixed list; a plain string is the answer slot ``v`` alone."""
    options = [v if isinstance(v, dict) else {"v": v} for v in values]
    return lambda rng, owner: dict(rng.choice(options))


FACTS = (
    _Kind(
        "pet",
        _pick(
            *(
                {"v": n, "animal": a}
                for n, a in (
                    ("Biscuit", "dog"),
                    ("Mochi", "cat"),
                    ("Pepper", "dog"),
                    ("Juniper", "cat"),
                    ("Waffles", "dog"),
                    ("Ziggy", "cat"),
                    ("Olive", "dog"),
                    ("Pickles", "cat"),
                )
            )
        ),
        say=(
            ("o*:sorry, slow reply, had to feed {v}. that {animal} screams if breakfast is late",),
            (
                "x:how's the new {animal} settling in??",
                "o*:{v} has already claimed the good armchair",
            ),
            ("o*:{v} knocked my glass off the table and just stared at me. worst {animal} ever",),
            ("o*:three years with {v} and I still can't believe how much that {animal} sleeps",),
            (
                "x:did you ever pick a name for the {animal}?",
                "o*:{v}! the neighbour's kid chose it and honestly it suits him",
            ),
        ),
        ask=(
            "What is the name of {name}'s {animal}?",
            "What's {name}'s {animal} called?",
            "What is {name}'s pet's name?",
        ),
        echo=("o:{v} says hi btw", "o:{v} has discovered the radiator and refuses to move"),
    ),
    _Kind(
        "sibling",
        _pick(
            *(
                {"v": n, "sib": s}
                for s, n in (
                    ("sister", "Hannah"),
                    ("brother", "Theo"),
                    ("sister", "Grace"),
                    ("brother", "Felix"),
                    ("sister", "Zara"),
                    ("brother", "Omar"),
                )
            )
        ),
        say=(
            ("o*:my {sib} {v} is staying with us this week, the flat feels tiny",),
            (
                "x:who was that in your photo?",
                "o*:that's {v}, my little {sib}! we look nothing alike",
            ),
            ("o*:{v} (my {sib}) called to borrow money again. some things never change",),
            ("o*:lunch with my big {sib} today. {v} is the only one who makes me laugh like that",),
        ),
        ask=("What is the name of {name}'s {sib}?", "What's {name}'s {sib} called?"),
        echo=("x:how's {v} doing?", "o:{v} says hello"),
    ),
    _Kind(
        "hometown",
        _pick("Galway", "Bendigo", "Leeds", "Tucson", "Halifax", "Dunedin", "Asheville", "Aarhus"),
        say=(
            ("o*:I grew up in {v}, so this cold is nothing to me",),
            ("x:where are you from originally?", "o*:{v}! tiny place, everyone knows everyone"),
            ("o*:going back to {v} for mum's birthday always makes me feel about fourteen again",),
            ("o*:nothing beats summers back home in {v}. I miss it",),
        ),
        ask=("Where did {name} grow up?", "What is {name}'s hometown?", "Where is {name} from?"),
    ),
    _Kind(
        "instrument",
        _pick("cello", "trumpet", "bass guitar", "piano", "violin", "drums", "saxophone"),
        say=(
            ("o*:I've played the {v} since I was seven and I'm still not good at it lol",),
            (
                "x:do you still play anything?",
                "o*:a bit of {v}, mostly when the neighbours are out",
            ),
            ("o*:band practice tonight and I haven't touched the {v} in weeks. oops",),
        ),
        ask=("What instrument does {name} play?", "Which instrument does {name} play?"),
    ),
    _Kind(
        "degree",
        _pick(
            "marine biology",
            "philosophy",
            "civil engineering",
            "art history",
            "economics",
            "linguistics",
        ),
        say=(
            ("o*:I have a degree in {v} and I spend my days in spreadsheets. life is funny",),
            ("x:what did you study again?", "o*:{v}. don't quiz me on it though, it's all gone"),
            ("o*:my old {v} professor would be so disappointed in me right now",),
        ),
        ask=("What did {name} study at university?", "What is {name}'s degree in?"),
    ),
    _Kind(
        "partner",
        _pick("Daniel", "Aisha", "Marco", "Chloe", "Ben", "Yuki", "Freya"),
        say=(
            ("o*:{v} and I just hit five years together, where does the time go",),
            ("o*:my partner {v} made dinner tonight and it was actually incredible",),
            (
                "x:are you bringing anyone on saturday?",
                "o*:{v} is coming! you'll finally meet them",
            ),
        ),
        ask=("What is the name of {name}'s partner?", "Who is {name} in a relationship with?"),
        echo=("o:{v} says we should all get dinner soon",),
    ),
    _Kind(
        "allergy",
        _pick("peanuts", "shellfish", "kiwi", "sesame", "strawberries"),
        say=(
            ("o*:had to send my salad back, it had {v} in it and I'm allergic",),
            ("x*:can you have {v}?", "o*:nope, allergic! I carry an epipen and everything"),
            ("o*:reminder for the party: I'm allergic to {v}, so no surprises in the cake please",),
        ),
        ask=("What is {name} allergic to?", "Which food allergy does {name} have?"),
    ),
)

CHANGES = (
    _Change(
        "city",
        (
            "Denver",
            "Austin",
            "Portland",
            "Glasgow",
            "Melbourne",
            "Toronto",
            "Seattle",
            "Bristol",
            "Wellington",
            "Dublin",
        ),
        old=(
            ("o*:the rent in {old} is getting out of hand, my landlord wants another 150 a month",),
            ("x:remind me where you're living these days?", "o*:still in {old}! six years now"),
            ("o*:{old} in summer is brutal, it was 35 degrees on my walk home",),
            ("o*:love living in {old} but the buses here are a joke",),
        ),
        announce=(
            ("o*:big news: we're moving to {new}! the lease starts next month",),
            ("o*:so... I said yes to the offer. I'm moving to {new} 😬",),
            (
                "x:any news?",
                "o*:yes actually! found a flat in {new}, moving at the end of the month",
            ),
        ),
        settle=(
            ("o*:first week in {new} done. still getting lost on the way to the supermarket",),
            (
                "x:how's {new} treating you?",
                "o*:honestly I love it here. the new place gets so much light",
            ),
            ("o*:finally unpacked the last box. {new} officially feels like home",),
        ),
        ask_now=(
            "Where does {name} live now?",
            "Which city is {name} living in these days?",
            "What city does {name} currently live in?",
        ),
        ask_before=(
            "Where did {name} live before moving to {new}?",
            "Which city did {name} move away from?",
            "Where was {name} living before the move?",
        ),
        echo_old=(
            "o:{old} had its first snow today",
            "o:there's a street food festival in {old} this weekend",
        ),
        echo_new=(
            "o:it's so windy in {new} today",
            "o:found a great little bakery around the corner",
        ),
    ),
    _Change(
        "employer",
        (
            "Hartwell & Co",
            "Brightline Logistics",
            "Nimbus Health",
            "Kestrel Labs",
            "Oakridge Bank",
            "Tidewater Media",
            "Solstice Games",
            "Marlow Architects",
        ),
        old=(
            ("o*:another monday at {old}, send snacks",),
            ("o*:my manager at {old} scheduled a meeting about having fewer meetings. not joking",),
            (
                "x*:are you still at {old}?",
                "o*:yep, four years in march. the free snacks keep me there",
            ),
            ("o*:{old} is doing layoffs again, everyone's on edge",),
        ),
        announce=(
            ("o*:I did it. handed in my notice today. starting at {new} in two weeks!",),
            ("x:how did the interview go?", "o*:they offered me the job!! I'm going to {new}"),
            ("o*:last day at {old} today, weird clearing out my desk. {new} on monday!",),
        ),
        settle=(
            ("o*:{new} is so different, people actually reply to emails",),
            (
                "x:how's the new job?",
                "o*:so good. everyone at {new} is lovely, the commute is the only downside",
            ),
            ("o*:got my {new} badge and laptop today, it's official",),
        ),
        ask_now=(
            "Where does {name} work now?",
            "Which company does {name} work for these days?",
            "Who is {name}'s current employer?",
        ),
        ask_before=(
            "Where did {name} work before {new}?",
            "Which company did {name} leave?",
            "What was {name}'s previous employer?",
        ),
        echo_new=("o:long day at {new}, my brain is soup",),
    ),
    _Change(
        "car",
        (
            "Honda Civic",
            "Toyota Corolla",
            "Ford Fiesta",
            "VW Golf",
            "Subaru Outback",
            "Mazda 3",
            "Kia Niro",
            "Nissan Leaf",
        ),
        old=(
            ("o*:my {old} is making that horrible grinding noise again",),
            ("o*:the {old} failed its inspection. of course it did",),
            (
                "x*:still driving that old {old}?",
                "o*:she's fifteen years old and she'll outlive us all",
            ),
        ),
        announce=(
            ("o*:said goodbye to the {old} today 😢 picked up a {new} though!",),
            ("o*:we bought a {new}! well, the bank bought it, we just drive it",),
            (
                "x:did you end up replacing the car?",
                "o*:yep, got a secondhand {new}, it drives like a dream",
            ),
        ),
        settle=(
            ("o*:the {new} is so quiet I keep thinking it's off",),
            ("o*:took the {new} on its first road trip, 600 km and zero drama",),
        ),
        ask_now=("What car does {name} drive now?", "What is {name}'s current car?"),
        ask_before=(
            "What car did {name} have before the {new}?",
            "Which car did {name} get rid of?",
        ),
    ),
)

PREFERENCES = (
    _Kind(
        "food",
        _pick(
            "pad thai",
            "ramen",
            "shakshuka",
            "pho",
            "dumplings",
            "butter chicken",
            "lasagne",
            "sushi",
        ),
        say=(
            ("o*:if I could only eat one thing for the rest of my life it'd be {v}. no contest",),
            (
                "x:where do you want to go for your birthday dinner?",
                "o*:somewhere with good {v}, obviously",
            ),
            ("o*:made {v} again tonight. third time this week. I regret nothing",),
        ),
        ask=(
            "What is {name}'s favorite food?",
            "What dish does {name} love most?",
            "What food could {name} eat every day?",
        ),
    ),
    _Kind(
        "music",
        _pick(
            "Fleetwood Mac",
            "Phoebe Bridgers",
            "Arctic Monkeys",
            "Nina Simone",
            "Khruangbin",
            "Bon Iver",
            "Radiohead",
        ),
        say=(
            ("o*:{v} has been on repeat all week. still my favourite, always will be",),
            (
                "x:what are you listening to these days?",
                "o*:same as always, {v}. I'm very predictable",
            ),
            ("o*:nothing beats {v} on a long drive. nothing",),
        ),
        ask=(
            "Who is {name}'s favorite musician?",
            "What music does {name} love?",
            "Which artist does {name} listen to the most?",
        ),
    ),
    _Kind(
        "coffee",
        _pick("oat flat white", "iced americano", "cortado", "chai latte", "matcha latte"),
        say=(
            ("o*:the barista at the corner starts my {v} the second I walk in. good sign or bad?",),
            ("x:want anything from the café?", "o*:ooh yes, a {v} please! you're a star"),
            ("o*:my order never changes: {v}, no sugar",),
        ),
        ask=("What is {name}'s usual coffee order?", "What does {name} usually get at the café?"),
    ),
    _Kind(
        "season",
        _pick("autumn", "winter", "spring", "summer"),
        say=(
            ("o*:{v} is the best season and I will not be taking questions",),
            ("o*:I live for {v}. everything just feels better",),
        ),
        ask=("What is {name}'s favorite season?", "Which season does {name} like best?"),
    ),
    _Kind(
        "books",
        _pick(
            "murder mysteries", "sci-fi", "historical fiction", "fantasy", "memoirs", "thrillers"
        ),
        say=(
            ("o*:I've read nothing but {v} this year, I can't help it",),
            ("x:what kind of books should I get you?", "o*:{v}! always {v}"),
            ("o*:the library lets me take ten books at once. all {v}, obviously",),
        ),
        ask=("What kind of books does {name} like?", "What genre does {name} like to read?"),
    ),
    _Kind(
        "dislike",
        _pick("cilantro", "olives", "mayonnaise", "blue cheese", "licorice", "raw onion"),
        say=(
            ("o*:I genuinely cannot stand {v}. it ruins everything it touches",),
            ("x:should I get the one with {v}?", "o*:ew, no, you know I hate {v}"),
            ("o*:picked all the {v} out of my lunch like a toddler. no regrets",),
        ),
        ask=("What food does {name} hate?", "Which food can't {name} stand?"),
    ),
    _Kind(
        "exercise",
        _pick("swimming", "bouldering", "yoga", "cycling", "tennis"),
        say=(
            ("o*:{v} is the only exercise I actually enjoy, the gym bores me to tears",),
            ("x:want to come to spin class with me?", "o*:ha, no thanks, I'll stick to {v}"),
            ("o*:nothing clears my head like {v}. best part of my week",),
        ),
        ask=("What is {name}'s favorite way to exercise?", "How does {name} like to stay active?"),
    ),
)

NEGATIONS = (
    _Kind(
        "diet",
        _pick(
            *(
                {"v": v, "dish": d}
                for v, d in (
                    ("red meat", "burger"),
                    ("pork", "carnitas"),
                    ("dairy", "four-cheese pizza"),
                    ("gluten", "garlic bread"),
                    ("fish", "salmon bagel"),
                )
            )
        ),
        say=(
            ("o*:I don't eat {v} anymore, it's been about a year now",),
            (
                "x:want to split the {dish}?",
                "o*:ah, that's got {v} in it and I don't eat {v}. all yours",
            ),
            ("o*:cutting out {v} was the best thing I ever did for my stomach. not going back",),
            ("o*:no {v} for me, thanks. haven't touched it since last year",),
        ),
        ask=(
            "What does {name} not eat?",
            "What food does {name} avoid?",
            "What has {name} cut out of their diet?",
        ),
    ),
    _Kind(
        "never_visited",
        _pick("Japan", "Iceland", "New York", "Mexico City", "Scotland", "Morocco"),
        say=(
            ("o*:I've never been to {v}, it's embarrassing at this point",),
            ("x*:you've been to {v}, right?", "o*:nope, never! it's top of my list though"),
            ("o*:everyone assumes I've been to {v} but I haven't, not once",),
        ),
        ask=(
            "Which place has {name} never been to?",
            "Where has {name} never travelled, despite wanting to?",
        ),
    ),
    _Kind(
        "quit",
        _pick("smoking", "drinking", "Instagram", "energy drinks", "TikTok", "vaping"),
        say=(
            ("o*:I quit {v} back in january and honestly I don't miss it",),
            ("x*:are you still doing the no {v} thing?", "o*:yep, day ninety. not going back"),
            ("o*:day sixty with no {v}. weirdly proud of myself",),
        ),
        ask=("What did {name} give up?", "What habit did {name} quit?"),
    ),
    _Kind(
        "never_learned",
        _pick("swim", "drive", "ride a bike", "ski", "whistle"),
        say=(
            ("o*:fun fact: I never learned to {v}. my parents tried, it didn't take",),
            ("o*:I'm thirty-one and I still can't {v}. never learned, never will",),
            ("x*:wait, so you really can't {v}?", "o*:nope, never learned! it's a whole thing"),
        ),
        ask=("What did {name} never learn to do?", "What can't {name} do, having never learned?"),
    ),
    _Kind(
        "not_owned",
        _pick("TV", "microwave", "dishwasher", "toaster"),
        say=(
            ("o*:we don't own a {v}. people find this very upsetting",),
            ("o*:no {v} in our house, never had one, never will",),
            (
                "x:just stick it in the {v}",
                "o*:I don't have a {v}, remember? it's a choice. a weird one",
            ),
        ),
        ask=("What doesn't {name} have at home?", "Which appliance does {name} not own?"),
    ),
)

EVENTS = (
    _Kind(
        "race",
        _pick("Riverside Half Marathon", "Harbour 10K", "Lakeshore 5K", "Bridge to Bridge run"),
        say=(
            ("o*:ran the {v} {rel}! my legs are still filing complaints",),
            (
                "x:you look wrecked in that photo lol",
                "o*:{Rel} I ran the {v}. never again. until next year",
            ),
            ("o*:guess who finished the {v} {rel}?? not fast, but I finished!",),
        ),
        ask=("Which race did {name} run?", "What race did {name} take part in?"),
        when=("When did {name} run the {v}?", "When was the {v} that {name} ran?"),
    ),
    _Kind(
        "concert",
        _pick(
            "The Lumineers",
            "Wolf Alice",
            "Hozier",
            "Fleet Foxes",
            "The National",
            "Vampire Weekend",
        ),
        say=(
            ("o*:saw {v} live {rel} and I'm still not over it",),
            ("o*:{Rel} we went to see {v}. I lost my voice screaming along",),
            (
                "x:how was the concert??",
                "o*:unreal. we saw {v} {rel} and they played for almost three hours",
            ),
        ),
        ask=("Which band did {name} see live?", "Who did {name} see in concert?"),
        when=("When did {name} see {v} live?", "When did {name} go to see {v}?"),
    ),
    _Kind(
        "trip",
        _pick("Barcelona", "Crete", "Marrakech", "Vancouver", "Prague", "Budapest", "Copenhagen"),
        say=(
            ("o*:just got back from {v}! we flew out {rel} and I already want to go back",),
            (
                "x:how was the trip?",
                "o*:{v} was perfect. we landed {rel} and ate our way through the city",
            ),
            ("o*:{Rel} we got on a plane to {v} and now I'm back at my desk. rude",),
        ),
        ask=("Where did {name} go on holiday?", "Which city did {name} travel to?"),
        when=("When did {name} fly to {v}?", "When did {name} travel to {v}?"),
    ),
    _Kind(
        "injury",
        _pick(
            *(
                {"v": v, "sport": s}
                for v, s in (
                    ("wrist", "netball"),
                    ("ankle", "football"),
                    ("collarbone", "rugby"),
                    ("knee", "volleyball"),
                    ("thumb", "basketball"),
                )
            )
        ),
        say=(
            ("o*:sprained my {v} playing {sport} {rel}. I'm fine. mostly",),
            (
                "x:why are you in a cast??",
                "o*:hurt my {v} at {sport} {rel}. tripped over my own feet",
            ),
            ("o*:{Rel} I fell off my bike and messed up my {v}. the bike is fine, thanks",),
        ),
        ask=("What did {name} injure?", "Which part of their body did {name} hurt?"),
        when=("When did {name} hurt their {v}?", "When did {name} injure their {v}?"),
    ),
    _Kind(
        "adoption",
        _pick(
            "rescue greyhound", "pair of guinea pigs", "three-legged cat", "senior beagle", "budgie"
        ),
        say=(
            ("o*:we adopted a {v} from the shelter {rel}!! I'm obsessed",),
            ("o*:{Rel} we brought home a {v}. the flat is chaos now",),
            ("x:what's new?", "o*:umm we may have adopted a {v} {rel}. an adorable accident"),
        ),
        ask=("What animal did {name} adopt?", "What did {name} bring home from the shelter?"),
        when=("When did {name} adopt the {v}?",),
    ),
    _Kind(
        "purchase",
        _pick(
            "used kayak", "3D printer", "road bike", "sewing machine", "telescope", "electric piano"
        ),
        say=(
            ("o*:I caved and bought a {v} {rel}. no regrets. some regrets",),
            ("o*:the {v} I ordered finally arrived {rel}, I've been playing with it all evening",),
            (
                "x:what's that in the background?",
                "o*:my new {v}! picked it up {rel} from a guy online",
            ),
        ),
        ask=("What big purchase did {name} make?", "What did {name} treat themselves to?"),
        when=("When did {name} get the {v}?",),
    ),
    _Kind(
        "baby",
        _pick(
            *(
                {"v": v, "kid": k, "rw": r, "they": t}
                for v, k, r, t in (
                    ("Lily", "girl", "niece", "she"),
                    ("Noah", "boy", "nephew", "he"),
                    ("Ava", "girl", "niece", "she"),
                    ("Mateo", "boy", "nephew", "he"),
                    ("Isla", "girl", "niece", "she"),
                )
            )
        ),
        say=(
            ("o*:{Rel} my brother and his wife had their baby! a little {kid} named {v}",),
            (
                "x:any baby news yet?",
                "o*:yes!! {v} arrived {rel}, a healthy little {kid}. my brother is a wreck",
            ),
            ("o*:met my {rw} {v} today. {they} was born {rel} and is already the boss",),
        ),
        ask=("What is the name of {name}'s {rw}?", "What did {name}'s brother name his baby?"),
        when=("When was {name}'s {rw} born?", "When was {v} born?"),
    ),
    _Kind(
        "exam",
        _pick(
            "driving test", "AWS certification exam", "B2 Spanish exam", "motorcycle test", "GRE"
        ),
        say=(
            ("o*:passed my {v} {rel}!!! I can't stop smiling",),
            (
                "x:so?? how did it go?",
                "o*:I PASSED. sat the {v} {rel} and got the result this morning",
            ),
            ("o*:{Rel} I finally took the {v}. passed, by some miracle",),
        ),
        ask=("What exam did {name} pass?", "Which test did {name} pass?"),
        when=("When did {name} take the {v}?", "When did {name} pass the {v}?"),
    ),
    _Kind(
        "wedding",
        _pick("Rosa", "Jamal", "Bianca", "Callum", "Mei", "Tobias"),
        say=(
            ("o*:my cousin {v}'s wedding was {rel}. I cried through the entire ceremony",),
            ("o*:{Rel} my cousin {v} got married. we danced until 2am and my feet hate me",),
            (
                "x:how was the wedding?",
                "o*:gorgeous! {v} looked so happy. it was {rel} and I'm still recovering",
            ),
        ),
        ask=("Whose wedding did {name} go to?", "Which of {name}'s cousins got married?"),
        when=("When was {name}'s cousin's wedding?", "When did {name} go to {v}'s wedding?"),
    ),
    _Kind(
        "hike",
        _pick(
            "Skyline Trail",
            "Eagle Peak loop",
            "Coastal Path",
            "Devil's Staircase",
            "Blue Lake trail",
        ),
        say=(
            ("o*:did the {v} {rel}, 14 miles, I can barely walk",),
            ("o*:{Rel} we hiked the {v}. the view at the top was unreal",),
            ("x:you're so sunburnt!", "o*:that's six hours on the {v} for you. we went {rel}"),
        ),
        ask=("Which trail did {name} hike?", "Where did {name} go hiking?"),
        when=("When did {name} hike the {v}?",),
    ),
    _Kind(
        "flood",
        _pick("basement", "kitchen", "bathroom", "laundry room", "garage"),
        say=(
            ("o*:the {v} flooded {rel}. a pipe burst. we're drying it out with every fan we own",),
            ("o*:{Rel} I came home to an inch of water in the {v}. landlord 'will look at it'",),
        ),
        ask=("Which room flooded at {name}'s place?", "What part of {name}'s home flooded?"),
        when=("When did {name}'s {v} flood?",),
    ),
    _Kind(
        "talk",
        _pick("PyCon", "DevOpsDays", "UX London", "the Women in Data meetup", "Strange Loop"),
        say=(
            ("o*:gave my first ever conference talk at {v} {rel}! only forgot one slide",),
            (
                "x:how did the talk go?",
                "o*:really well! the room at {v} was packed {rel}. still buzzing",
            ),
        ),
        ask=("Where did {name} give a talk?", "At which event did {name} speak?"),
        when=("When did {name} speak at {v}?",),
    ),
)

# Started "last month": the answer is a month, not a day.
MONTH_EVENTS = _Kind(
    "started",
    _pick(
        "pottery classes",
        "Spanish lessons",
        "a climbing course",
        "a sourdough course",
        "salsa classes",
    ),
    say=(
        ("o*:I started {v} last month and I'm already obsessed",),
        ("o*:been doing {v} since last month, my teacher is so patient",),
        (
            "x:what are you up to on thursdays now?",
            "o*:{v}! signed up last month, it's my new thing",
        ),
    ),
    ask=(),
    when=("When did {name} start {v}?", "In which month did {name} begin {v}?"),
)

# Told ahead ("on Thursday", "in two weeks"); asked afterwards.
PLANS = _Kind(
    "plan",
    _pick(
        "dentist appointment",
        "job interview",
        "eye test",
        "vet appointment",
        "passport appointment",
    ),
    say=(
        ("o*:my {v} is {fut}, wish me luck",),
        ("x*:when's your {v}?", "o*:{Fut}! already nervous about it"),
        ("o*:can't do drinks {fut}, I have my {v}",),
    ),
    ask=(),
    when=("When was {name}'s {v}?", "What day did {name} have the {v}?"),
)


def _order(rng: Random, owner: str) -> Slots:
    mid, tail = rng.randint(10**6, 10**7 - 1), rng.randint(0, 10**7 - 1)
    number = rng.choice(
        (
            f"{rng.randint(100, 999)}-{mid}-{tail:07d}",
            f"W{rng.randint(10**7, 10**8 - 1)}",
            f"ORD-{rng.randint(100000, 999999)}",
        )
    )
    store = rng.choice(("Parcelly", "Lumen Outfitters", "BookNook", "HomeGoods Direct", "Gadgetry"))
    item = rng.choice(("desk lamp", "running shoes", "rug", "headphones", "new kettle"))
    return {"v": number, "store": store, "item": item}


def _ticket(rng: Random, owner: str) -> Slots:
    return {
        "v": rng.choice(
            (
                f"INC{rng.randint(10**6, 10**7 - 1):07d}",
                f"SR-{rng.randint(10000, 99999)}",
                f"HELP-{rng.randint(1000, 9999)}",
            )
        )
    }


def _website(rng: Random, owner: str) -> Slots:
    handle = owner.lower() + rng.choice(("makes", "draws", "codes", "studio", ""))
    if handle == owner.lower():
        handle += str(rng.randint(10, 99))
    url = rng.choice(
        (
            f"https://{handle}.design",
            f"https://www.{handle}-portfolio.com",
            f"https://github.com/{handle}",
        )
    )
    return {"v": url}


def _recipe(rng: Random, owner: str) -> Slots:
    dish, slug = rng.choice(
        (
            ("lemon cake", "lemon-drizzle-cake"),
            ("chili", "one-pot-chili"),
            ("salmon", "miso-glazed-salmon"),
            ("banana bread", "brown-butter-banana-bread"),
            ("curry", "weeknight-chickpea-curry"),
        )
    )
    site = rng.choice(("pantrynotes", "crumbandfork", "saltysaturday", "theweeknightcook"))
    return {"v": f"https://www.{site}.com/recipes/{slug}", "dish": dish}


def _ip(rng: Random, owner: str) -> Slots:
    address = rng.choice(
        (
            f"192.168.{rng.randint(0, 2)}.{rng.randint(2, 254)}",
            f"10.0.{rng.randint(0, 9)}.{rng.randint(2, 254)}",
        )
    )
    device = rng.choice(("printer", "NAS", "Raspberry Pi", "home server", "security camera"))
    return {"v": address, "dev": device}


def _email(rng: Random, owner: str) -> Slots:
    last = rng.choice(("okafor", "lindqvist", "brennan", "takahashi", "moreau", "patel", "reyes"))
    user = rng.choice((f"{owner.lower()}.{last}", f"{owner.lower()}{last[0]}{rng.randint(10, 99)}"))
    domain = rng.choice(("fastmail.com", "proton.me", "gmail.com", "outlook.com"))
    return {"v": f"{user}@{domain}"}


def _code(rng: Random, owner: str) -> Slots:
    letters = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
    return {
        "v": "".join(rng.choice(letters) for _ in range(6)),
        "what": rng.choice(("flight", "hotel", "ferry")),
    }


def _wifi(rng: Random, owner: str) -> Slots:
    word = rng.choice(("sunflower", "pancake", "otter", "lighthouse", "marmalade", "cactus"))
    return {"v": f"{word}-{rng.randint(10, 99)}"}


def _tracking(rng: Random, owner: str) -> Slots:
    chars = "ABCDEFGHJKLMNPRSTUVWXY0123456789"
    return {"v": "1Z" + "".join(rng.choice(chars) for _ in range(16))}


IDENTIFIERS = (
    _Kind(
        "order",
        _order,
        say=(
            ("o*:my {item} from {store} still hasn't arrived. order {v}, placed it two weeks ago",),
            ("o*:writing this here so I don't lose it: {store} order #{v}",),
            (
                "x:did {store} ever sort out the refund?",
                "o*:not yet, on hold right now. order number {v}, third call today",
            ),
            ("o*:{store} says order {v} was delivered. it was not. I'm standing at my door",),
        ),
        ask=(
            "What was {name}'s order number with {store}?",
            "What was the number of the {store} order {name} was chasing?",
        ),
    ),
    _Kind(
        "ticket",
        _ticket,
        say=(
            ("o*:IT finally replied to my ticket {v}. it only took nine days",),
            ("o*:logged it with support, ticket {v}. now we wait",),
            (
                "x:did anyone fix your laptop?",
                "o*:nope, {v} is still 'in progress'. it's been a week",
            ),
        ),
        ask=(
            "What was the ticket number of {name}'s IT request?",
            "Which support ticket was {name} waiting on?",
        ),
    ),
    _Kind(
        "website",
        _website,
        say=(
            ("o*:my new portfolio is finally up! {v} be honest",),
            ("x:send me your website again?", "o*:{v}, still a work in progress"),
            ("o*:updated my site with the new photos, {v} if you want a look",),
        ),
        ask=(
            "What is the URL of {name}'s website?",
            "Where can you find {name}'s portfolio online?",
        ),
    ),
    _Kind(
        "recipe",
        _recipe,
        say=(
            ("o*:here's the {dish} recipe I was telling you about {v}",),
            ("x:what recipe did you use for the {dish}?", "o*:this one! {v} I tweaked it a bit"),
            ("o*:{v} <- this {dish} changed my life",),
        ),
        ask=(
            "What link did {name} share for the {dish} recipe?",
            "Where is the {dish} recipe {name} recommended?",
        ),
    ),
    _Kind(
        "ip",
        _ip,
        say=(
            ("o*:the {dev} is on {v} if your laptop can't find it",),
            (
                "x:what's the address of your {dev} again?",
                "o*:{v}. the login is on a sticky note under it",
            ),
            ("o*:finally set up the {dev}, gave it a fixed address: {v}",),
        ),
        ask=("What is the IP address of {name}'s {dev}?", "Which IP did {name} give the {dev}?"),
    ),
    _Kind(
        "email",
        _email,
        say=(
            ("o*:send the photos to {v}, my work email blocks big attachments",),
            ("x:what's your new email?", "o*:{v}. the old one got hacked, don't use it"),
            ("o*:can you add me to the group with {v}? I never check the other one",),
        ),
        ask=(
            "What email address did {name} ask people to use?",
            "What is {name}'s personal email address?",
        ),
    ),
    _Kind(
        "booking",
        _code,
        say=(
            ("o*:{what} booking reference is {v}, in case I lose my phone",),
            (
                "x:did the {what} booking go through?",
                "o*:yep! confirmation code {v}, I screenshotted it",
            ),
        ),
        ask=(
            "What was the booking reference {name} shared?",
            "What was {name}'s {what} confirmation code?",
        ),
    ),
    _Kind(
        "wifi",
        _wifi,
        say=(
            ("o*:wifi password is {v} for when you come over",),
            ("x:what's your wifi password again?", "o*:{v}, all lowercase"),
            ("o*:changed the wifi password to {v}, the neighbours were stealing it",),
        ),
        ask=("What is the wifi password at {name}'s place?", "What's {name}'s wifi password?"),
    ),
    _Kind(
        "tracking",
        _tracking,
        say=(
            ("o*:the tracking number is {v} but it hasn't updated in three days",),
            ("o*:here's the tracking for your birthday present: {v} 🎁",),
        ),
        ask=("What tracking number did {name} share?", "What was the tracking number {name} sent?"),
    ),
)

# --- small talk ---------------------------------------------------------------------------------

SMALL_TALK: tuple[Template, ...] = (
    ("how's your week going?", "{ok}", "same honestly"),
    ("did you watch the new episode of {show}?", "not yet!! no spoilers", "my lips are sealed 🤐"),
    ("it's {weather} here again", "ugh, same. I've given up on the umbrella"),
    ("what did you have for dinner?", "{meal}. living the dream", "honestly that sounds great"),
    ("I slept like eleven hours last night", "jealous. I was up at {time} for no reason"),
    (
        "{coworker} microwaved fish in the office again",
        "nooo. some people want to watch the world burn",
    ),
    (
        "any plans this weekend?",
        "nothing much, maybe clean the flat. you?",
        "same, glamorous lives we lead",
    ),
    (
        "lol did you see that video of the goat on the trampoline",
        "YES. I've watched it like twenty times",
    ),
    ("my phone is at 3% and I'm nowhere near a charger", "live dangerously"),
    (
        "traffic was a nightmare this morning",
        "accident?",
        "no idea, everyone just driving like it's day one",
    ),
    ("I finally finished {show}", "and??", "the ending was... a choice"),
    (
        "how's your mum doing?",
        "much better, thanks for asking! back to bossing everyone around",
        "love that",
    ),
    (
        "reminder to never go food shopping hungry",
        "what did you buy lol",
        "three kinds of crackers and no actual food",
    ),
    ("happy friday!!", "is it?? I've completely lost track of the days"),
    ("my cousin just moved to {city}", "oh nice, will you visit?", "maybe in the spring"),
    ("the neighbours are renovating again", "at least it's not at 7am", "it is literally at 7am"),
    ("I think I'm coming down with something", "tea and an early night", "yes mum"),
    (
        "have you tried the new bakery on the corner?",
        "not yet, is it good?",
        "the cinnamon buns are dangerous",
    ),
    ("work is so quiet this week, it's suspicious", "enjoy it while it lasts"),
    ("just spent 40 minutes looking for my keys", "where were they?", "in my hand. the whole time"),
    ("what are you reading at the moment?", "nothing, my brain is mush after work", "relatable"),
    (
        "I accidentally replied-all to the whole company",
        "oh no. what did it say",
        "just 'lol'. to 300 people",
    ),
    ("did you get my voice note?", "I did! sorry, I'll listen properly tonight"),
    ("it's so {weather} out, I refuse to leave the house", "honestly valid"),
    ("can't believe it's already {month}", "right?? this year is flying"),
    (
        "my plant is dying and I don't know why",
        "too much water probably",
        "I water it once a month!",
        "too little then lol",
    ),
    (
        "the internet at work was down all afternoon",
        "get anything done?",
        "I organised my desk drawer. very productive",
    ),
    ("I need a holiday", "don't we all"),
    ("{coworker} brought in homemade brownies today", "marry them", "already married, I checked"),
    ("watching the game tonight?", "probably, if I stay awake", "it starts at 9 lol", "exactly"),
    (
        "I tried to make bread and it came out like a brick",
        "did you let it rise?",
        "was I supposed to?",
    ),
    (
        "random question: do you still have my blue scarf?",
        "oh! yes, sorry. I'll bring it next time",
    ),
    ("long day", "want to talk about it?", "nah, just tired. thanks though"),
    ("my inbox is at 400 unread", "declare email bankruptcy", "tempting"),
    ("we should do a call soon, texting isn't the same", "yes! next week?", "deal"),
    (
        "just saw the funniest dog at the park",
        "what kind?",
        "no idea, it looked like a mop with legs",
    ),
    ("ok I need a new show, suggestions?", "have you seen {show}?", "no! adding it"),
    (
        "I've been awake since {time} and it already feels like three days",
        "oof. early night for you",
    ),
    ("the bus was 25 minutes late again", "that route is cursed"),
    ("guess what I found in my old jacket", "money?", "twenty quid! best day of the week"),
    ("is it just me or is everyone sick right now", "not just you, half my team is out"),
    ("I finally booked a haircut", "about time lol", "rude. accurate, but rude"),
    ("pineapple on pizza: yes or no", "absolutely not", "wrong, but I respect your honesty"),
    ("cleaned the whole kitchen today", "proud of you", "it'll be a mess again by tomorrow"),
    (
        "the cat next door is sitting on my windowsill again",
        "adopt it",
        "it clearly has a better life than me",
    ),
    ("what time is it there?", "almost {time}", "ok not too late then"),
    ("I started a 1000 piece puzzle. regret", "how far are you?", "I have the corners"),
    ("the new season of {show} is out!", "no way, I thought that was next month", "surprise drop!"),
    ("I need to stop buying notebooks I never use", "but they're so pretty", "exactly the problem"),
    ("did you end up going to that thing on {wd}?", "nah, I bailed. too tired", "fair"),
    ("I made soup. a lot of soup. too much soup", "bring some over", "I'll freeze you a tub"),
    ("why is every meeting an hour long", "because no one wants to be the one who ends it"),
    (
        "my laptop decided to update in the middle of a call",
        "classic",
        "ten minutes of spinning wheel",
    ),
    (
        "thinking of repainting the bathroom",
        "what colour?",
        "something green maybe",
        "bold. I like it",
    ),
    ("the weather app said sunny and it's hailing", "the weather app lies"),
    ("sorry I went quiet, crazy day", "no worries at all!"),
    (
        "tell me something good",
        "I got a parking spot right outside the door today",
        "a true miracle",
    ),
    (
        "remember that terrible karaoke night?",
        "I've blocked it out",
        "you sang three songs in a row",
        "lies",
    ),
    ("my knee clicks when I walk now, I'm officially old", "welcome to the club"),
    (
        "did you ever fix the leaky tap?",
        "I watched four videos and made it worse",
        "call a plumber lol",
    ),
    ("groceries are so expensive now", "I paid six dollars for grapes last week", "grapes!!"),
    (
        "I'm cooking for eight on {wd} and I'm panicking",
        "big pasta bake. no one complains about pasta bake",
    ),
    ("my flatmate keeps eating my yoghurt", "label it", "I did. she ate the label too"),
    ("trying to drink more water", "how's it going?", "I've had one glass. it's {time}"),
    ("what's everyone doing for the long weekend?", "sleeping, mostly", "ambitious"),
    (
        "saw a double rainbow on the way home",
        "photo or it didn't happen",
        "my phone died. it happened",
    ),
    ("{coworker} is leaving, so there's cake in the kitchen", "save me a slice"),
    ("do you ever just stare at the fridge hoping new food appears", "every single night"),
    # Longer turns: people also tell stories.
    (
        "so today at work the fire alarm went off during the all-hands, and instead of leaving "
        "everyone just stood there waiting to see if it was a drill. it was not a drill. "
        "well, it was burnt toast, but still",
        "hahaha the collective 'is this my problem' energy",
        "exactly that. we all shuffled out eventually and stood in the car park for half an hour",
    ),
    (
        "I've decided I'm going to be a morning person. I set three alarms, put my phone across "
        "the room, laid out my clothes, the whole thing",
        "and how did that go",
        "I turned off all three alarms in my sleep and woke up at ten. I have no memory of it",
    ),
    (
        "my upstairs neighbour has started learning the tuba, or maybe it's a trombone, I "
        "honestly can't tell. every evening at seven, same four notes",
        "at least it's punctual?",
        "that's the worst part, I've started waiting for it",
    ),
    (
        "went to the farmers market and somehow spent forty dollars on mushrooms, honey and a "
        "candle that smells like 'forest floor'",
        "what does forest floor smell like",
        "wet. it smells wet. I love it",
    ),
    (
        "I was stuck on the train for an hour because of a signal fault, and the guy next to me "
        "told me his entire life story, including his divorce and his thoughts on crypto",
        "did you at least get a good story out of it",
        "I now know more about his ex-wife than about my own family",
    ),
    (
        "{coworker} and I spent the whole afternoon trying to fix the office printer. we turned "
        "it off and on, we shook it, we read the manual. in the end someone had just put the "
        "paper in upside down",
        "the printer always wins",
    ),
    (
        "is it normal to spend two hours choosing a paint colour? because I have forty samples "
        "on the wall and they all look exactly the same to me now",
        "pick the third one from the left. trust me",
        "you can't even see them",
        "still right though",
    ),
    (
        "we tried that escape room on {wd}. we got out with two minutes left, mostly because "
        "someone (me) finally noticed the key taped under the table",
        "hero behaviour",
        "I'm putting it on my CV",
    ),
    (
        "my grandma has discovered voice messages and now sends me six-minute updates about her "
        "garden, her neighbours and what she had for lunch",
        "honestly that sounds lovely",
        "it is. I listen to all of them on my walk to work",
    ),
    (
        "tried a new running route this morning, got completely lost, ended up in an industrial "
        "estate and had to ask a forklift driver for directions",
        "did he help?",
        "he drew me a map on the back of a receipt. legend",
    ),
)
OPENERS: tuple[Template, ...] = (
    ("hey {B}!", "hey hey, how are you?", "{ok}"),
    ("hiii", "hi! long time no chat"),
    ("morning!", "morning! you're up early", "couldn't sleep"),
    ("you around?", "yep, what's up"),
    ("{B}!! how's it going", "good good, you?", "{ok}"),
    ("hey stranger", "I know, I know, I've been terrible at replying"),
    ("evening!", "hey! how was your day?", "{ok}"),
)
CLOSERS: tuple[Template, ...] = (
    ("ok I have to go cook, talk later!", "enjoy! bye"),
    ("going to sleep, night!", "night night"),
    ("gotta run, meeting", "go go go"),
    ("talk soon ❤️", "😘"),
    ("anyway, I'll let you go", "bye!! speak soon"),
)
FILLERS: dict[str, tuple[str, ...]] = {
    "ok": (
        "pretty good! busy but good",
        "honestly? long. but fine",
        "can't complain. well I could, but I won't",
        "good! tired. the usual",
        "not bad at all",
    ),
    "show": ("Severance", "The Bear", "Slow Horses", "Bake Off", "Abbott Elementary", "Shrinking"),
    "meal": (
        "leftover lasagne",
        "a sad desk salad",
        "cereal",
        "takeaway curry",
        "a grilled cheese",
    ),
    "weather": ("grey and drizzly", "stupidly hot", "windy", "cold", "foggy"),
    "coworker": ("Dave", "Linda", "Raj", "Carol", "Pete", "Anika"),
    "city": ("Phoenix", "Leipzig", "Cairns", "Oslo", "Nashville", "Lyon"),
    "time": ("6am", "10am", "11:30", "3pm", "9pm"),
}


# --- relative dates ------------------------------------------------------------------------------


def human_date(day: date) -> str:
    """The answer form of a date: '8 May 2023'."""
    return f"{day.day} {day:%B %Y}"


def _weekday(rng: Random, index: int) -> str:
    name = WEEKDAYS[index]
    return name if rng.random() < 0.6 else name.lower()


def _past(rng: Random, today: date) -> tuple[str, date]:
    """A relative phrase for a day 0-14 days before ``today``, and that day."""
    kind = rng.choice(("day", "day", "ndays", "weekday", "weekday", "weeks", "today"))
    options: list[tuple[str, int]]
    if kind == "day":
        options = [("yesterday", 1), ("last night", 1), ("the day before yesterday", 2)]
    elif kind == "ndays":
        options = [
            ("two days ago", 2),
            ("three days ago", 3),
            ("four days ago", 4),
            ("five days ago", 5),
        ]
    elif kind == "weeks":
        options = [
            ("a week ago", 7),
            ("two weeks ago", 14),
            ("a fortnight ago", 14),
            ("ten days ago", 10),
        ]
    elif kind == "today":
        options = [("this morning", 0), ("earlier today", 0)]
    else:
        options = []
        for index in range(7):
            delta = (today.weekday() - index) % 7 or 7
            name = _weekday(rng, index)
            if 2 <= delta <= 7:
                options += [(f"last {name}", delta), (f"this past {name}", delta)]
            if 2 <= delta <= 6:
                options.append((f"on {name}", delta))
    phrase, delta = rng.choice(options)
    return phrase, today - timedelta(days=delta)


def _future(rng: Random, today: date) -> tuple[str, date]:
    """A relative phrase for a day 1-14 days after ``today``, and that day."""
    options = [
        ("tomorrow", 1),
        ("the day after tomorrow", 2),
        ("a week from today", 7),
        ("in two weeks", 14),
    ]
    for index in range(7):
        delta = (index - today.weekday()) % 7
        if 2 <= delta <= 6:
            name = _weekday(rng, index)
            options += [(f"on {name}", delta), (f"this coming {name}", delta)]
    phrase, delta = rng.choice(options)
    return phrase, today + timedelta(days=delta)


def _month_before(day: date) -> tuple[str, str]:
    """'April 2023' for a day in May 2023, and its ISO form."""
    first = day.replace(day=1) - timedelta(days=1)
    return f"{first:%B %Y}", f"{first:%Y-%m}"


# --- building one conversation ------------------------------------------------------------------


@dataclass
class _Line:
    speaker: str
    text: str
    key: str | None = None  # set on evidence lines


@dataclass
class _Question:
    q: str
    answer: str
    keys: list[str]
    type: str
    about: str


@dataclass
class _Builder:
    rng: Random
    speakers: tuple[str, ...]
    times: list[datetime]
    beats: list[list[list[_Line]]] = field(default_factory=list)
    questions: list[_Question] = field(default_factory=list)
    used: set[str] = field(default_factory=set)
    counter: int = 0

    def __post_init__(self) -> None:
        self.beats = [[] for _ in self.times]

    @property
    def n(self) -> int:
        return len(self.times)

    def session(self, lo: float, hi: float) -> int:
        """A session index in the [lo, hi) share of the conversation."""
        first = min(int(lo * self.n), self.n - 1)
        last = max(first, min(math.ceil(hi * self.n) - 1, self.n - 1))
        return self.rng.randint(first, last)

    def owner(self) -> str:
        if self.rng.random() < SUBJECT_SHARE:
            return self.speakers[0]
        return self.rng.choice(self.speakers[1:])

    def other(self, owner: str) -> str:
        return self.rng.choice([s for s in self.speakers if s != owner])

    def fresh(self, make: Callable[[], Slots]) -> Slots:
        """New slots whose answer no other storyline of this conversation uses."""
        for _ in range(200):
            slots = make()
            if slots["v"].casefold() not in self.used:
                self.used.add(slots["v"].casefold())
                return slots
        raise RuntimeError("value pool exhausted")

    def fresh_pair(self, pool: Sequence[str]) -> tuple[str, str]:
        choices = [v for v in pool if v.casefold() not in self.used]
        old, new = self.rng.sample(choices, 2)
        self.used.update((old.casefold(), new.casefold()))
        return old, new

    def beat(self, session: int, owner: str, template: Template, slots: Slots) -> list[str]:
        """Plant a template in a session; returns the keys of its evidence lines."""
        other = self.other(owner)
        keys: list[str] = []
        lines: list[_Line] = []
        for raw in template:
            role, _, text = raw.partition(":")
            if role not in ("o", "o*", "x", "x*"):
                raise ValueError(f"bad template line {raw!r}")
            line = _Line(owner if role.startswith("o") else other, text.format(**slots))
            if role.endswith("*"):
                self.counter += 1
                line.key = f"k{self.counter}"
                keys.append(line.key)
            lines.append(line)
        self.beats[session].append(lines)
        return keys

    def ask(
        self, kind: str, owner: str, template: str, answer: str, keys: list[str], slots: Slots
    ) -> None:
        question = template.format(**{**slots, "name": owner})
        self.questions.append(_Question(question, answer, keys, kind, owner))


def _slots(owner: str, values: Slots) -> Slots:
    return {**values, "name": owner}


def _plant_kind(b: _Builder, kind: _Kind, qtype: str) -> None:
    """A fact, preference or negation: one telling, one question, maybe later echoes."""
    owner = b.owner()
    slots = _slots(owner, b.fresh(lambda: kind.values(b.rng, owner)))
    session = b.session(0.0, 0.8)
    keys = b.beat(session, owner, b.rng.choice(kind.say), slots)
    b.ask(qtype, owner, b.rng.choice(kind.ask), slots["v"], keys, slots)
    for echo in kind.echo:
        if session + 1 < b.n and b.rng.random() < 0.5:
            b.beat(b.rng.randint(session + 1, b.n - 1), owner, (echo,), slots)


def _plant_change(b: _Builder, change: _Change) -> None:
    """An old value early on, a change announced later, a settling-in line after that."""
    owner = b.owner()
    old, new = b.fresh_pair(change.pool)
    slots = {"old": old, "new": new, "name": owner}
    first = b.session(0.0, 0.4)
    moved = max(first + 1, b.session(0.45, 0.8))
    if moved >= b.n:  # too few sessions for a change: tell the old value only
        keys = b.beat(first, owner, b.rng.choice(change.old), slots)
        b.ask("fact", owner, b.rng.choice(change.ask_now), old, keys, slots)
        return
    old_keys = b.beat(first, owner, b.rng.choice(change.old), slots)
    announce = b.rng.choice(change.announce)
    new_keys = b.beat(moved, owner, announce, slots)
    # An announcement that names the old value is evidence for it too.
    told = [raw for raw in announce if raw.partition(":")[0].endswith("*")]
    old_too = [key for key, raw in zip(new_keys, told, strict=True) if "{old}" in raw]
    if moved + 1 < b.n:
        settled = b.rng.randint(moved + 1, min(moved + 3, b.n - 1))
        new_keys += b.beat(settled, owner, b.rng.choice(change.settle), slots)
    b.ask("changed_fact", owner, b.rng.choice(change.ask_now), new, new_keys, slots)
    b.ask("changed_fact", owner, b.rng.choice(change.ask_before), old, old_keys + old_too, slots)
    for echo in change.echo_old:
        if moved - first > 1 and b.rng.random() < 0.6:
            b.beat(b.rng.randint(first + 1, moved - 1), owner, (echo,), slots)
    for echo in change.echo_new:
        if moved + 1 < b.n and b.rng.random() < 0.6:
            b.beat(b.rng.randint(moved + 1, b.n - 1), owner, (echo,), slots)


def _plant_event(b: _Builder, kind: _Kind, *, temporal_only: bool = False) -> None:
    """Something that happened, told with a relative date: what and when questions."""
    owner = b.owner()
    slots = _slots(owner, b.fresh(lambda: kind.values(b.rng, owner)))
    session = b.session(0.0, 1.0)
    rel, day = _past(b.rng, b.times[session].date())
    slots.update(rel=rel, Rel=rel[:1].upper() + rel[1:])
    keys = b.beat(session, owner, b.rng.choice(kind.say), slots)
    if not temporal_only:
        b.ask("event", owner, b.rng.choice(kind.ask), slots["v"], keys, slots)
    b.ask("temporal", owner, b.rng.choice(kind.when), human_date(day), keys, slots)


def _plant_month(b: _Builder) -> None:
    owner = b.owner()
    slots = _slots(owner, b.fresh(lambda: MONTH_EVENTS.values(b.rng, owner)))
    session = b.session(0.1, 1.0)
    keys = b.beat(session, owner, b.rng.choice(MONTH_EVENTS.say), slots)
    month, _ = _month_before(b.times[session].date())
    b.ask("temporal", owner, b.rng.choice(MONTH_EVENTS.when), month, keys, slots)


def _plant_plan(b: _Builder) -> None:
    owner = b.owner()
    slots = _slots(owner, b.fresh(lambda: PLANS.values(b.rng, owner)))
    session = b.session(0.0, 0.85)
    fut, day = _future(b.rng, b.times[session].date())
    slots.update(fut=fut, Fut=fut[:1].upper() + fut[1:])
    keys = b.beat(session, owner, b.rng.choice(PLANS.say), slots)
    b.ask("temporal", owner, b.rng.choice(PLANS.when), human_date(day), keys, slots)


def _scaled(base: int, sessions: int, available: int) -> int:
    return max(1, min(available, round(base * sessions / 30)))


def _session_times(rng: Random, sessions: int) -> list[datetime]:
    start = datetime(2022, 1, 1, tzinfo=UTC) + timedelta(days=rng.randint(0, 700))
    times: list[datetime] = []
    day = start
    for _ in range(sessions):
        day += timedelta(days=rng.randint(2, 9))
        times.append(day.replace(hour=rng.randint(8, 22), minute=rng.randrange(60)))
    return times


def _small_talk(rng: Random, deck: list[Template], a: str, b: str, when: datetime) -> list[_Line]:
    if not deck:
        deck.extend(SMALL_TALK)
        rng.shuffle(deck)
    return _fill(rng, deck.pop(), a, b, when)


def _fill(rng: Random, template: Template, a: str, b: str, when: datetime) -> list[_Line]:
    slots = {name: rng.choice(values) for name, values in FILLERS.items()}
    slots.update(A=a, B=b, wd=_weekday(rng, rng.randrange(7)), month=f"{when:%B}")
    return [_Line(a if i % 2 == 0 else b, text.format(**slots)) for i, text in enumerate(template)]


def _pair(rng: Random, speakers: Sequence[str]) -> tuple[str, str]:
    a, b = rng.sample(list(speakers), 2)
    return a, b


def _assemble(b: _Builder, session: int, deck: list[Template]) -> list[_Line]:
    """One session: an opener, small talk with the planted beats among it, often a closer."""
    rng = b.rng
    when = b.times[session]
    target = rng.randint(10, 30)
    opener = _fill(rng, rng.choice(OPENERS), *_pair(rng, b.speakers), when)
    closer = (
        _fill(rng, rng.choice(CLOSERS), *_pair(rng, b.speakers), when) if rng.random() < 0.7 else []
    )
    blocks: list[list[_Line]] = []
    size = len(opener) + len(closer) + sum(len(beat) for beat in b.beats[session])
    while size < target:
        talk = _small_talk(rng, deck, *_pair(rng, b.speakers), when)
        blocks.append(talk)
        size += len(talk)
    for beat in b.beats[session]:
        blocks.insert(rng.randint(0, len(blocks)), beat)
    return [line for block in (opener, *blocks, closer) for line in block]


def _conversation(
    seed: int, index: int, sessions: int, speakers: tuple[str, ...]
) -> dict[str, Any]:
    rng = Random(f"tessera-recall:{seed}:{index}")
    if index:
        speakers = tuple(rng.sample(NAME_POOL, len(speakers)))
    b = _Builder(rng, speakers, _session_times(rng, sessions))
    for kind in rng.sample(FACTS, _scaled(6, sessions, len(FACTS))):
        _plant_kind(b, kind, "fact")
    for change in rng.sample(CHANGES, _scaled(3, sessions, len(CHANGES))):
        _plant_change(b, change)
    for kind in rng.sample(PREFERENCES, _scaled(6, sessions, len(PREFERENCES))):
        _plant_kind(b, kind, "preference")
    for kind in rng.sample(NEGATIONS, _scaled(5, sessions, len(NEGATIONS))):
        _plant_kind(b, kind, "negation")
    for kind in rng.sample(EVENTS, _scaled(7, sessions, len(EVENTS))):
        _plant_event(b, kind)
    _plant_month(b)
    for _ in range(_scaled(2, sessions, 2)):
        _plant_plan(b)
    for kind in rng.sample(IDENTIFIERS, _scaled(6, sessions, len(IDENTIFIERS))):
        _plant_kind(b, kind, "identifier")

    deck: list[Template] = []
    ids: dict[str, str] = {}
    out_sessions: list[dict[str, Any]] = []
    for s in range(b.n):
        turns = []
        for t, line in enumerate(_assemble(b, s, deck), start=1):
            turn_id = f"D{s + 1}:{t}"
            if line.key:
                ids[line.key] = turn_id
            turns.append({"id": turn_id, "speaker": line.speaker, "text": line.text})
        out_sessions.append({"session_ts": f"{b.times[s]:%Y-%m-%dT%H:%M:00Z}", "turns": turns})
    texts = {t["id"]: t["text"] for session in out_sessions for t in session["turns"]}
    questions = []
    for q in b.questions:
        evidence = [ids[k] for k in q.keys]
        if q.type not in ("temporal",) and not any(
            q.answer.casefold() in texts[i].casefold() for i in evidence
        ):
            raise AssertionError(f"answer {q.answer!r} not in the evidence of {q.q!r}")
        questions.append(
            {"q": q.q, "answer": q.answer, "evidence": evidence, "type": q.type, "about": q.about}
        )
    return {
        "id": f"recall-{seed}-{index + 1}",
        "speakers": list(speakers),
        "subject": speakers[0],
        "sessions": out_sessions,
        "questions": questions,
    }


def generate(
    seed: int,
    sessions: int = 30,
    speakers: Sequence[str] = DEFAULT_SPEAKERS,
    conversations: int = 1,
) -> dict[str, Any]:
    """``conversations`` synthetic conversations (the first between ``speakers``), deterministic."""
    if len(speakers) < 2:
        raise ValueError("a conversation needs at least two speakers")
    if sessions < 2:
        raise ValueError("a conversation needs at least two sessions")
    names = tuple(speakers)
    return {
        "format": FORMAT,
        "seed": seed,
        "conversations": [_conversation(seed, i, sessions, names) for i in range(conversations)],
    }


def main(argv: Sequence[str] | None = None) -> int:
    """CLI: write the data set as JSON to a file or stdout."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.recall.generate", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--conversations", type=int, default=1)
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--speakers", default=",".join(DEFAULT_SPEAKERS), help="comma-separated")
    parser.add_argument("-o", "--output", type=Path, help="file to write (default: stdout)")
    args = parser.parse_args(argv)
    data = generate(
        args.seed,
        sessions=args.sessions,
        speakers=tuple(s.strip() for s in args.speakers.split(",") if s.strip()),
        conversations=args.conversations,
    )
    text = json.dumps(data, ensure_ascii=False, indent=1) + "\n"
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
