/**
 * A stand-in for GitScrum's official TypeScript client (the GitScrumClient class of GitScrum's
 * MCP server), written from its source for these tests: the same URLs, query
 * encodings, headers and bodies, and the same handling of answers (JSON parsed on every 2xx,
 * error texts chosen by status and `error_code`). Only the project, label and activity methods.
 */
import { checkAnswer } from './openapi';

export class GitScrumStandIn {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  /** What the client's request() does: one slash between base and endpoint, five headers, JSON on every 2xx. */
  async request<T>(endpoint: string, options: RequestInit = {}): Promise<T> {
    const url = `${this.baseUrl}/${endpoint.replace(/^\//, '')}`;
    const response = await fetch(url, {
      ...options,
      headers: {
        Authorization: `Bearer ${this.token}`,
        Accept: 'application/json',
        'Content-Type': 'application/json',
        'X-Client-Type': 'mcp',
        'X-Client-Source': 'mcp-server',
      },
    });
    // Read once: checked against openapi.json like every answer of the suites, then parsed as the client does.
    const text = await response.text();
    checkAnswer(
      options.method ?? 'GET',
      new URL(url).pathname,
      response.status,
      response.headers.get('content-type'),
      text,
      response.headers,
    );
    if (!response.ok) {
      // As the client's `response.json().catch(() => ({}))`.
      const errorData = (parsedOr(text, {}) ?? {}) as {
        error_code?: string;
        message?: string;
        errors?: Record<string, string[]>;
      };
      const errorCode = errorData.error_code || '';
      const errorMessage = errorData.message || `API Error: ${response.status}`;
      if (response.status === 401) {
        if (errorCode === 'TOKEN_EXPIRED' || errorCode === 'SESSION_EXPIRED')
          throw new Error('Session expired. Use auth_login to reconnect.');
        throw new Error('Authentication required. Use auth_login to authenticate.');
      }
      if (response.status === 403) throw new Error(`Access denied: ${errorMessage}`);
      if (response.status === 404) {
        const resourceMessages: Record<string, string> = {
          TASK_NOT_FOUND: 'Task not found or was deleted.',
          PROJECT_NOT_FOUND: 'Project not found or was deleted.',
          WORKSPACE_NOT_FOUND: 'Workspace not found or was deleted.',
        };
        throw new Error(resourceMessages[errorCode] || 'Resource not found or was deleted.');
      }
      if (response.status === 409) throw new Error(`Conflict: ${errorMessage}`);
      if (response.status === 429)
        throw new Error(JSON.stringify({ error_code: errorCode || 'RATE_LIMIT_EXCEEDED', message: errorMessage }));
      if (response.status >= 500) throw new Error(`Server error: ${errorMessage}. Please try again later.`);
      throw new Error(errorMessage);
    }
    return JSON.parse(text) as T;
  }

  get<T>(endpoint: string, params?: Record<string, string | number | boolean | undefined>): Promise<T> {
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(params ?? {})) if (v !== undefined && v !== null) search.append(k, String(v));
    const query = search.toString();
    return this.request<T>(query ? `${endpoint}?${query}` : endpoint, { method: 'GET' });
  }

  post<T>(endpoint: string, body?: unknown): Promise<T> {
    return this.request<T>(endpoint, { method: 'POST', body: body ? JSON.stringify(body) : undefined });
  }

  put<T>(endpoint: string, body?: unknown): Promise<T> {
    return this.request<T>(endpoint, { method: 'PUT', body: body ? JSON.stringify(body) : undefined });
  }

  delete<T>(endpoint: string): Promise<T> {
    return this.request<T>(endpoint, { method: 'DELETE' });
  }

  async createProject(companySlug: string, data: { name: string; description?: string; visibility?: 'public' | 'private' }) {
    const response = await this.post<{ data: { slug: string; name: string } }>(`projects?company_slug=${companySlug}`, data);
    return { project_slug: response.data.slug, name: response.data.name };
  }

  getProjects(companySlug: string, options?: { status?: string; perPage?: number }) {
    return this.get<{ data: unknown[]; meta?: unknown }>('projects', {
      company_slug: companySlug,
      per_page: options?.perPage ?? 100,
      status: options?.status,
    });
  }

  async search(query: string, options?: { company_slug?: string; categories?: string; limit?: number }) {
    const response = await this.get<{ data: unknown }>('search', {
      q: query,
      company_slug: options?.company_slug,
      categories: options?.categories,
      limit: options?.limit,
    });
    return response.data;
  }

  /** The client's findProjectByName: search, exact title match else first, slugs parsed from `route`. */
  async findProjectByName(name: string, companySlug?: string) {
    const results = (await this.search(name, { company_slug: companySlug, categories: 'projects', limit: 5 })) as {
      projects?: { items: { title: string; route: string }[] };
    };
    const projects = results?.projects?.items;
    if (!projects || projects.length === 0) return null;
    const project = projects.find((p) => p.title.toLowerCase() === name.toLowerCase()) || projects[0]!;
    const match = project.route.match(/^\/([^/]+)\/projects\/([^/]+)$/);
    if (!match) return null;
    return { project_slug: match[2]!, company_slug: match[1]!, name: project.title, workspace_slug: companySlug || match[1]! };
  }

  async getProject(projectSlug: string, companySlug: string) {
    return (await this.get<{ data: unknown }>(`projects/${projectSlug}`, { company_slug: companySlug })).data;
  }

  async getProjectStats(projectSlug: string, companySlug: string) {
    return (await this.get<{ data: unknown }>(`projects/${projectSlug}/stats`, { company_slug: companySlug })).data;
  }

  async getProjectLabels(projectSlug: string, companySlug: string) {
    return (await this.get<{ data: unknown[] }>('task-labels', { project_slug: projectSlug, company_slug: companySlug })).data;
  }

  async getWorkspaceLabels(companySlug: string) {
    return (await this.get<{ data: unknown[] }>('projects-labels', { company_slug: companySlug })).data;
  }

  async createLabel(companySlug: string, data: { title: string; color: string }) {
    return (await this.post<{ data: unknown }>(`projects-labels?company_slug=${companySlug}`, data)).data;
  }

  async updateLabel(labelSlug: string, companySlug: string, data: { title?: string; color?: string }): Promise<void> {
    await this.put(`projects-labels/${labelSlug}?company_slug=${companySlug}`, data);
  }

  async attachLabelToProject(labelSlug: string, projectSlug: string, companySlug: string): Promise<void> {
    await this.post(`projects-labels/${labelSlug}/attach?company_slug=${companySlug}&project_slug=${projectSlug}`, { slug: labelSlug });
  }

  async detachLabelFromProject(labelSlug: string, projectSlug: string, companySlug: string): Promise<void> {
    await this.delete(`projects-labels/${labelSlug}/detach?company_slug=${companySlug}&project_slug=${projectSlug}`);
  }

  /** The client's getActivities: the options it is given, each only when set, as query parameters; answers `data`. */
  async getActivities(options: {
    from_context?: string;
    company_slug?: string;
    project_slug?: string;
    sprint_slug?: string;
    uuid?: string;
  }) {
    const params: Record<string, string> = {};
    if (options.from_context) params.from_context = options.from_context;
    if (options.company_slug) params.company_slug = options.company_slug;
    if (options.project_slug) params.project_slug = options.project_slug;
    if (options.sprint_slug) params.sprint_slug = options.sprint_slug;
    if (options.uuid) params.uuid = options.uuid;
    return (await this.get<{ data: unknown }>('activities', params)).data;
  }

  /** The `activity` tool's `activities` action: the client's answer, pretty-printed as the tool's text. */
  async activityTool(args: { from_context?: string; company_slug?: string; project_slug?: string; sprint_slug?: string; uuid?: string }) {
    const data = await this.getActivities(args);
    return JSON.stringify(data, null, 2);
  }

  toggleLabelOnTask(taskUuid: string, labelSlug: string, projectSlug: string, companySlug: string) {
    return this.post<unknown>(
      `task-labels/${labelSlug}/toggle?company_slug=${companySlug}&project_slug=${projectSlug}&task_uuid=${taskUuid}`,
      {},
    );
  }
}

/** The JSON of `text`, or `fallback` when it is not JSON. */
function parsedOr(text: string, fallback: unknown): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return fallback;
  }
}
