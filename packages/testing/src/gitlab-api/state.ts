/**
 * What the GitLab stand-in keeps: users, projects (by ID and by path), their members and access
 * levels, issues and merge requests (each with its own `iid` sequence, as on GitLab), notes and
 * the discussions they are in, and award emoji. Tests seed it and read it back.
 * @module
 */

export interface UserRecord {
  id: number;
  username: string;
  name: string;
  /** A project or group access token's bot user, or GitLab's own. */
  bot: boolean;
}

export type NoteableKind = 'issue' | 'merge_request';

export interface IssueRecord {
  id: number;
  iid: number;
  title: string;
  description: string | null;
  state: 'opened' | 'closed';
  labels: string[];
  author: UserRecord;
  createdAt: string;
  updatedAt: string;
}

export interface MergeRequestRecord extends IssueRecord {
  sourceBranch: string;
  targetBranch: string;
  draft: boolean;
  /** The source branch's head commit when it was opened. */
  sha: string | null;
}

export interface NoteRecord {
  id: number;
  projectId: number;
  on: { kind: NoteableKind; iid: number };
  body: string;
  author: UserRecord;
  /** GitLab's note types: `null` a plain comment, `DiscussionNote` a note in a thread, `DiffNote` on a diff line. */
  type: null | 'DiscussionNote' | 'DiffNote';
  discussionId: string;
  system: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface AwardRecord {
  id: number;
  name: string;
  user: UserRecord;
  /** The issue or merge request, and the note when the award is on one. */
  on: { projectId: number; kind: NoteableKind; iid: number; noteId: number | null };
  createdAt: string;
}

export interface ProjectState {
  id: number;
  /** `group/subgroup/project`. */
  path: string;
  defaultBranch: string | null;
  visibility: 'private' | 'internal' | 'public';
  /** User id → access level (10 Guest … 50 Owner), inherited ones included. */
  members: Map<number, number>;
  issues: Map<number, IssueRecord>;
  mergeRequests: Map<number, MergeRequestRecord>;
}

export const timestamp = (): string => new Date().toISOString();

/** A 40-hex discussion id, as GitLab makes them. */
const discussionIdFor = (seed: number): string => seed.toString(16).padStart(8, '0').repeat(5);

export function createState() {
  let nextId = 1000;
  const users = new Map<string, UserRecord>();
  const projects = new Map<number, ProjectState>();
  const notes = new Map<number, NoteRecord>();
  const awards: AwardRecord[] = [];

  const state = {
    users,
    projects,
    notes,
    awards,
    nextId: () => ++nextId,
    /** The user named `username`, made on first mention. */
    user(username: string, setup: { bot?: boolean } = {}): UserRecord {
      const key = username.toLowerCase();
      let user = users.get(key);
      if (!user) {
        user = { id: ++nextId, username, name: username, bot: setup.bot ?? /^(project|group)_\d+_bot/.test(username) };
        users.set(key, user);
      }
      return user;
    },
    /** The project by its ID or its path (case-insensitive, as GitLab finds them). */
    project(idOrPath: string | number): ProjectState | null {
      const text = String(idOrPath);
      if (/^\d+$/.test(text)) return projects.get(Number(text)) ?? null;
      for (const project of projects.values()) if (project.path.toLowerCase() === text.toLowerCase()) return project;
      return null;
    },
    addProject(path: string, setup: { defaultBranch?: string | null; visibility?: ProjectState['visibility'] } = {}): ProjectState {
      const existing = state.project(path);
      if (existing) return existing;
      const project: ProjectState = {
        id: ++nextId,
        path,
        defaultBranch: setup.defaultBranch === undefined ? 'main' : setup.defaultBranch,
        visibility: setup.visibility ?? 'private',
        members: new Map(),
        issues: new Map(),
        mergeRequests: new Map(),
      };
      projects.set(project.id, project);
      return project;
    },
    addIssue(project: ProjectState, setup: { iid?: number; title?: string; description?: string | null; author?: string; labels?: string[] }): IssueRecord {
      const iid = setup.iid ?? Math.max(0, ...project.issues.keys()) + 1;
      if (project.issues.has(iid)) throw new Error(`issue ${project.path}#${iid} exists already`);
      const at = timestamp();
      const issue: IssueRecord = {
        id: ++nextId,
        iid,
        title: setup.title ?? `Issue ${iid}`,
        description: setup.description ?? null,
        state: 'opened',
        labels: [...(setup.labels ?? [])],
        author: state.user(setup.author ?? 'root'),
        createdAt: at,
        updatedAt: at,
      };
      project.issues.set(iid, issue);
      return issue;
    },
    addMergeRequest(
      project: ProjectState,
      setup: {
        iid?: number;
        title?: string;
        description?: string | null;
        author?: string;
        sourceBranch: string;
        targetBranch?: string;
        draft?: boolean;
        sha?: string | null;
      },
    ): MergeRequestRecord {
      const iid = setup.iid ?? Math.max(0, ...project.mergeRequests.keys()) + 1;
      if (project.mergeRequests.has(iid)) throw new Error(`merge request ${project.path}!${iid} exists already`);
      const at = timestamp();
      const request: MergeRequestRecord = {
        id: ++nextId,
        iid,
        title: setup.title ?? `Merge request ${iid}`,
        description: setup.description ?? null,
        state: 'opened',
        labels: [],
        author: state.user(setup.author ?? 'root'),
        createdAt: at,
        updatedAt: at,
        sourceBranch: setup.sourceBranch,
        targetBranch: setup.targetBranch ?? project.defaultBranch ?? 'main',
        draft: setup.draft ?? false,
        sha: setup.sha ?? null,
      };
      project.mergeRequests.set(iid, request);
      return request;
    },
    /** A note; in discussion `discussionId` (a reply) or in a new one of its own. */
    addNote(
      project: ProjectState,
      on: { kind: NoteableKind; iid: number },
      setup: { body: string; author: UserRecord; type?: NoteRecord['type']; discussionId?: string; system?: boolean },
    ): NoteRecord {
      const id = ++nextId;
      const at = timestamp();
      const note: NoteRecord = {
        id,
        projectId: project.id,
        on: { ...on },
        body: setup.body,
        author: setup.author,
        type: setup.type ?? null,
        discussionId: setup.discussionId ?? discussionIdFor(id),
        system: setup.system ?? false,
        createdAt: at,
        updatedAt: at,
      };
      notes.set(id, note);
      return note;
    },
    /** The notes of an issue or merge request, oldest first. */
    notesOf(project: ProjectState, on: { kind: NoteableKind; iid: number }): NoteRecord[] {
      return [...notes.values()]
        .filter((note) => note.projectId === project.id && note.on.kind === on.kind && note.on.iid === on.iid)
        .sort((a, b) => a.id - b.id);
    },
  };
  return state;
}

export type GitLabState = ReturnType<typeof createState>;
