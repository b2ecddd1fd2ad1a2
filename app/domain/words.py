"""Word lists and regex atoms that more than one stage reads: one copy of each.

- ``STOPWORDS``: plain English function words. The tokenizer drops none of them (a query for
  "who" must still find "who"); what drops them says so.
- ``CHAT_STOPWORDS``: those plus the words people chat with (greetings, filler, time words,
  common verbs): what a segment's keywords and a sentence's small talk are told apart by.
- ``PAST_TENSE_VERBS``: irregular past tenses, for telling a past event from a plan.
- ``NOT_PAST_ED``: words ending in "-ed" that are no past tense ("need", "speed").
- The regex atoms match the speaker as subject: "I" (``I_ALONE``), "I'm" (``I_AM``), "we"
  (``WE_ALONE``), each as a whole word in any case, never inside "I'd" or "wee".
"""

from __future__ import annotations

import re

_STOPWORD_TEXT = """
    a about above after again against all am an and any are aren't as at be because been before
    being below between both but by can can't cannot could couldn't did didn't do does doesn't
    doing don't down during each few for from further had hadn't has hasn't have haven't having
    he he'd he'll he's her here here's hers herself him himself his how how's i i'd i'll i'm
    i've if in into is isn't it it's its itself let's me more most mustn't my myself no nor not
    of off on once only or other ought our ours ourselves out over own same shan't she she'd
    she'll she's should shouldn't so some such than that that's the their theirs them themselves
    then there there's these they they'd they'll they're they've this those through to too under
    until up very was wasn't we we'd we'll we're we've were weren't what what's when when's where
    where's which while who who's whom why why's will with won't would wouldn't you you'd you'll
    you're you've your yours yourself yourselves
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

# Conversational filler, time words and the verbs of talking: keywords should say what a
# segment is about, not how people chat.
_CHAT_TEXT = """
    actually afternoon ago almost also although always amazing among anyone anything anyway
    anyways around ask asked away awesome back bad basically bye came cheers come comes
    congrats congratulations cool day days definitely done earlier either else enough even
    evening ever every everyone everything feel feels felt fine first get gets getting glad
    go goes going gone gonna good goodbye got gotta great guess haha hahaha happen happened
    happens hear heard hehe hello hey hi hiya however just keep kinda knew know last lately
    later let like likely literally lmao lol look looking lot lots made make makes many may
    maybe mean means might mine month months morning much must near need needs never new
    next nice nothing now often oh ok okay old omg one others otherwise per perhaps please
    pretty quite rather really recently right said say says see seem seems shall since
    someone something sometimes soon sorry sorta still sure take talk talked talking tell
    thank thanks thing things think though thought thus thx time times today told tomorrow
    tonight took totally tried try trying upon us use used via wanna want wants way week
    weeks well went whatever whether whose within without wow yeah year years yes yesterday
    yet
"""
CHAT_STOPWORDS = STOPWORDS | frozenset(_CHAT_TEXT.split())

_PAST_TEXT = """
    was were did had went got came saw took made said told ran won lost met left bought sold
    found felt thought began gave wrote ate drove flew swam sang spent sent brought caught taught
    built held kept slept heard paid sat stood fell broke chose forgot became knew grew threw wore
    woke rode drew drank fought led meant used fed hung lit shot spoke stole stuck struck swore
    tore understood sought bent bled dug froze hid bit shook slid spun sprang stung strode
"""
PAST_TENSE_VERBS = frozenset(_PAST_TEXT.split())
# Verbs and nouns ending in -ed that are no past tense.
_NOT_PAST_ED_TEXT = "need feed bleed breed speed seed exceed proceed succeed embed shred"
NOT_PAST_ED = frozenset(_NOT_PAST_ED_TEXT.split())

I_ALONE = r"(?<![\w'])(?i:i)(?![\w'])"
I_AM = r"(?<![\w'])(?i:i'm|i\s+am|im)(?![\w'])"
WE_ALONE = r"(?<![\w'])(?i:we)(?![\w'])"
# A letter said three times running ("soooo", "himmm"): chat emphasis, never part of a name.
STRETCHED = re.compile(r"([^\W\d])\1\1", re.IGNORECASE)
