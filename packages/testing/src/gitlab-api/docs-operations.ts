/**
 * The operations the platform calls that GitLab's vendored REST description
 * (`gitlab-openapi.json`) lacks: notes on issues and merge requests (list, create, edit),
 * replies in a discussion, and editing an issue (how labels are added to one). Written in the
 * same Swagger 2.0 form, from GitLab's REST API documentation — "Notes API" (`doc/api/notes.md`),
 * "Discussions API" (`doc/api/discussions.md`), "Issues API" (`doc/api/issues.md`, "Edit an
 * issue") — and checked against the requests of GitLab's maintained client, `@gitbeaker/rest`
 * (`ResourceNotes`, `ResourceDiscussions.addNote`, `Issues.edit`). The path parameters are named
 * as GitLab's own routes name them (`noteable_id` is the issue's or merge request's `iid`).
 * @module
 */

type Json = Record<string, unknown>;

const projectId = { in: 'path', name: 'id', description: 'The ID or URL-encoded path of the project', type: 'string', required: true };
const noteableId = (what: string) => ({
  in: 'path',
  name: 'noteable_id',
  description: `The IID of the ${what}`,
  type: 'integer',
  format: 'int32',
  required: true,
});
const noteId = { in: 'path', name: 'note_id', description: 'The ID of a note', type: 'integer', format: 'int32', required: true };
const discussionId = { in: 'path', name: 'discussion_id', description: 'The ID of a discussion', type: 'string', required: true };
const body = (name: string) => ({ name, in: 'body', required: true, schema: { $ref: `#/definitions/${name}` } });
const listQuery = [
  {
    in: 'query',
    name: 'order_by',
    description: 'Return notes ordered by `created_at` or `updated_at` fields.',
    type: 'string',
    enum: ['created_at', 'updated_at'],
    default: 'created_at',
    required: false,
  },
  {
    in: 'query',
    name: 'sort',
    description: 'Return notes sorted in `asc` or `desc` order.',
    type: 'string',
    enum: ['asc', 'desc'],
    default: 'desc',
    required: false,
  },
  {
    in: 'query',
    name: 'activity_filter',
    description: 'The type of notables which are returned.',
    type: 'string',
    enum: ['all_notes', 'only_comments', 'only_activity'],
    default: 'all_notes',
    required: false,
  },
  { in: 'query', name: 'page', description: 'Current page number', type: 'integer', format: 'int32', default: 1, required: false },
  { in: 'query', name: 'per_page', description: 'Number of items per page', type: 'integer', format: 'int32', default: 20, required: false },
];
const errors = {
  '400': { description: 'Bad request' },
  '401': { description: 'Unauthorized' },
  '403': { description: 'Forbidden' },
  '404': { description: 'Not found' },
};

/** The list, create and edit operations of notes on one kind of noteable. */
function notes(segment: 'issues' | 'merge_requests', tag: 'Issues' | 'MergeRequests', what: string): Json {
  const base = `/api/v4/projects/{id}/${segment}/{noteable_id}/notes`;
  return {
    [base]: {
      get: {
        summary: `List all ${what} notes`,
        parameters: [projectId, noteableId(what), ...listQuery],
        responses: { '200': { description: `List all ${what} notes` }, ...errors },
        tags: ['notes'],
        operationId: `getApiV4ProjectsId${tag}NoteableIdNotes`,
      },
      post: {
        summary: `Create a new ${what} note`,
        consumes: ['application/json'],
        parameters: [projectId, noteableId(what), body(`postApiV4ProjectsId${tag}NoteableIdNotes`)],
        responses: { '201': { description: `Create a new ${what} note` }, ...errors },
        tags: ['notes'],
        operationId: `postApiV4ProjectsId${tag}NoteableIdNotes`,
      },
    },
    [`${base}/{note_id}`]: {
      put: {
        summary: `Modify an existing ${what} note`,
        consumes: ['application/json'],
        parameters: [projectId, noteableId(what), noteId, body(`putApiV4ProjectsId${tag}NoteableIdNotesNoteId`)],
        responses: { '200': { description: `Modify an existing ${what} note` }, ...errors },
        tags: ['notes'],
        operationId: `putApiV4ProjectsId${tag}NoteableIdNotesNoteId`,
      },
    },
    [`/api/v4/projects/{id}/${segment}/{noteable_id}/discussions/{discussion_id}/notes`]: {
      post: {
        summary: `Add a note to an existing ${what} thread`,
        consumes: ['application/json'],
        parameters: [projectId, noteableId(what), discussionId, body(`postApiV4ProjectsId${tag}NoteableIdDiscussionsDiscussionIdNotes`)],
        responses: { '201': { description: `Add a note to an existing ${what} thread` }, ...errors },
        tags: ['discussions'],
        operationId: `postApiV4ProjectsId${tag}NoteableIdDiscussionsDiscussionIdNotes`,
      },
    },
  };
}

const noteBody = { type: 'string', description: 'The content of a note. Limited to 1,000,000 characters.' };
const createdAt = { type: 'string', description: 'Date time string, ISO 8601 formatted. Requires administrator or project/group owner rights.' };
const commaSeparated = (description: string) => ({ type: 'array', description, items: { type: 'string' } });

/** The added operations, as a Swagger 2.0 `paths` and `definitions`. */
export const DOCS_OPERATIONS: { paths: Json; definitions: Json } = {
  paths: {
    ...notes('issues', 'Issues', 'issue'),
    ...notes('merge_requests', 'MergeRequests', 'merge request'),
    '/api/v4/projects/{id}/issues/{issue_iid}': {
      put: {
        summary: 'Edit an issue',
        consumes: ['application/json'],
        parameters: [
          projectId,
          { in: 'path', name: 'issue_iid', description: 'The internal ID of a project’s issue', type: 'integer', format: 'int32', required: true },
          body('putApiV4ProjectsIdIssuesIssueIid'),
        ],
        responses: { '200': { description: 'Edit an issue' }, ...errors, '409': { description: 'Conflict' }, '422': { description: 'Unprocessable entity' } },
        tags: ['issues'],
        operationId: 'putApiV4ProjectsIdIssuesIssueIid',
      },
    },
  },
  definitions: {
    postApiV4ProjectsIdIssuesNoteableIdNotes: {
      type: 'object',
      properties: {
        body: noteBody,
        confidential: { type: 'boolean', description: 'Deprecated: use internal instead.' },
        internal: { type: 'boolean', description: 'The internal flag of a note. Default is false.' },
        created_at: createdAt,
      },
      required: ['body'],
    },
    putApiV4ProjectsIdIssuesNoteableIdNotesNoteId: {
      type: 'object',
      properties: { body: noteBody, confidential: { type: 'boolean', description: 'Deprecated: confidentiality cannot be changed.' } },
    },
    postApiV4ProjectsIdIssuesNoteableIdDiscussionsDiscussionIdNotes: {
      type: 'object',
      properties: { body: noteBody, note_id: { type: 'integer', format: 'int32', description: 'The ID of a thread note.' }, created_at: createdAt },
      required: ['body'],
    },
    postApiV4ProjectsIdMergeRequestsNoteableIdNotes: {
      type: 'object',
      properties: {
        body: noteBody,
        internal: { type: 'boolean', description: 'The internal flag of a note. Default is false.' },
        created_at: createdAt,
        merge_request_diff_head_sha: { type: 'string', description: 'Required for the /merge quick action. The SHA of the head commit.' },
      },
      required: ['body'],
    },
    putApiV4ProjectsIdMergeRequestsNoteableIdNotesNoteId: {
      type: 'object',
      properties: { body: noteBody },
    },
    postApiV4ProjectsIdMergeRequestsNoteableIdDiscussionsDiscussionIdNotes: {
      type: 'object',
      properties: { body: noteBody, note_id: { type: 'integer', format: 'int32', description: 'The ID of a thread note.' }, created_at: createdAt },
      required: ['body'],
    },
    putApiV4ProjectsIdIssuesIssueIid: {
      type: 'object',
      properties: {
        add_labels: commaSeparated('Comma-separated label names to add to an issue.'),
        assignee_ids: { type: 'array', description: 'The ID of the users to assign the issue to.', items: { type: 'integer', format: 'int32' } },
        confidential: { type: 'boolean', description: 'Updates an issue to be confidential.' },
        description: { type: 'string', description: 'The description of an issue. Limited to 1,048,576 characters.' },
        discussion_locked: { type: 'boolean', description: 'Flag indicating if the issue’s discussion is locked.' },
        due_date: { type: 'string', description: 'The due date. Date time string in the format YYYY-MM-DD.' },
        epic_id: { type: 'integer', format: 'int32', description: 'ID of the epic to add the issue to.' },
        epic_iid: { type: 'integer', format: 'int32', description: 'IID of the epic to add the issue to. Deprecated.' },
        issue_type: { type: 'string', enum: ['issue', 'incident', 'test_case', 'task'], description: 'The type of issue.' },
        labels: commaSeparated('Comma-separated label names for an issue. Set to an empty string to unassign all labels.'),
        milestone_id: { type: 'integer', format: 'int32', description: 'The global ID of a milestone to assign the issue to.' },
        remove_labels: commaSeparated('Comma-separated label names to remove from an issue.'),
        state_event: { type: 'string', enum: ['close', 'reopen'], description: 'The state event of an issue.' },
        title: { type: 'string', description: 'The title of an issue.' },
        updated_at: { type: 'string', description: 'When the issue was updated. Date time string, ISO 8601 formatted.' },
        weight: { type: 'integer', format: 'int32', description: 'The weight of the issue.' },
      },
    },
  },
};
