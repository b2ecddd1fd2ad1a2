"""Contains all the data models used in inputs/outputs"""

from .accepted import Accepted
from .belief import Belief
from .content_part import ContentPart
from .context_get_context_format import ContextGetContextFormat
from .contradiction import Contradiction
from .day_out import DayOut
from .entity import Entity
from .entity_type import EntityType
from .episode import Episode
from .facts_in import FactsIn
from .facts_out import FactsOut
from .facts_out_summary import FactsOutSummary
from .forgotten_out import ForgottenOut
from .health import Health
from .health_checks import HealthChecks
from .imported_item import ImportedItem
from .imported_item_metadata_type_0 import ImportedItemMetadataType0
from .ingest_payload import IngestPayload
from .instruction import Instruction
from .instruction_history_item import InstructionHistoryItem
from .integrity_out import IntegrityOut
from .issued_key_out import IssuedKeyOut
from .job_out import JobOut
from .job_out_result import JobOutResult
from .job_page import JobPage
from .key_create import KeyCreate
from .observation import Observation
from .open_loop import OpenLoop
from .passport import Passport
from .passport_meta import PassportMeta
from .passport_written import PassportWritten
from .plan_out import PlanOut
from .problem import Problem
from .problem_errors_type_0_item import ProblemErrorsType0Item
from .progress import Progress
from .receipt_out import ReceiptOut
from .receipt_out_removed import ReceiptOutRemoved
from .row_in import RowIn
from .row_in_row import RowInRow
from .said_date import SaidDate
from .search_hit import SearchHit
from .search_result import SearchResult
from .section_change import SectionChange
from .session_out import SessionOut
from .session_page import SessionPage
from .source import Source
from .tenant_create import TenantCreate
from .tenant_created import TenantCreated
from .tenant_out import TenantOut
from .text_in import TextIn
from .turn_entry import TurnEntry
from .turn_in import TurnIn
from .turn_in_role_type_0 import TurnInRoleType0
from .turn_page import TurnPage
from .usage import Usage
from .usage_counts import UsageCounts
from .usage_out import UsageOut
from .user_out import UserOut
from .user_page import UserPage
from .users_get_passport_format import UsersGetPassportFormat
from .users_put_passport_doc import UsersPutPassportDoc
from .value import Value
from .value_history_item import ValueHistoryItem
from .version_changes_out import VersionChangesOut
from .version_changes_out_changes import VersionChangesOutChanges
from .version_changes_out_items import VersionChangesOutItems
from .version_out import VersionOut
from .version_out_changes import VersionOutChanges
from .version_page import VersionPage

__all__ = (
    "Accepted",
    "Belief",
    "ContentPart",
    "ContextGetContextFormat",
    "Contradiction",
    "DayOut",
    "Entity",
    "EntityType",
    "Episode",
    "FactsIn",
    "FactsOut",
    "FactsOutSummary",
    "ForgottenOut",
    "Health",
    "HealthChecks",
    "ImportedItem",
    "ImportedItemMetadataType0",
    "IngestPayload",
    "Instruction",
    "InstructionHistoryItem",
    "IntegrityOut",
    "IssuedKeyOut",
    "JobOut",
    "JobOutResult",
    "JobPage",
    "KeyCreate",
    "Observation",
    "OpenLoop",
    "Passport",
    "PassportMeta",
    "PassportWritten",
    "PlanOut",
    "Problem",
    "ProblemErrorsType0Item",
    "Progress",
    "ReceiptOut",
    "ReceiptOutRemoved",
    "RowIn",
    "RowInRow",
    "SaidDate",
    "SearchHit",
    "SearchResult",
    "SectionChange",
    "SessionOut",
    "SessionPage",
    "Source",
    "TenantCreate",
    "TenantCreated",
    "TenantOut",
    "TextIn",
    "TurnEntry",
    "TurnIn",
    "TurnInRoleType0",
    "TurnPage",
    "Usage",
    "UsageCounts",
    "UsageOut",
    "UserOut",
    "UserPage",
    "UsersGetPassportFormat",
    "UsersPutPassportDoc",
    "Value",
    "ValueHistoryItem",
    "VersionChangesOut",
    "VersionChangesOutChanges",
    "VersionChangesOutItems",
    "VersionOut",
    "VersionOutChanges",
    "VersionPage",
)
