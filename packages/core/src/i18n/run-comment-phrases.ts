/**
 * The fixed phrases of the platform's own comments on a code host, per language: a run's "on it",
 * its outcome, an approval request, a run a budget kept from starting, and the offer to fix
 * failing checks. What the agent wrote (its final answer) is not here: the agent writes it in the
 * owner's language itself. Values in the phrases (names, counts, sums, dates) come formatted; the
 * commands people type back (`/approve`, `/reject`) stay as they are in every language.
 *
 * A language is added by adding its catalog here (every phrase, checked by the type); an owner's
 * language without one gets English.
 * @module
 */

export type CommentLocale = 'en' | 'de' | 'fr' | 'es' | 'pt' | 'it' | 'ja' | 'zh-CN' | 'ko';

/** The final run statuses a headline names. */
export type OutcomeStatus = 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'SKIPPED';

export interface RunCommentPhrases {
  /** The outcome's headline for the automation `name` (Markdown, already bold): `**Triage** ✅ completed.` */
  outcome: Record<OutcomeStatus, (name: string) => string>;
  /** A completed run without a final answer. */
  noAnswer: string;
  /** After an answer cut for GitHub's size limit: `more` characters are in the run's conversation. */
  cut(more: string): string;
  /** After the run's link, when it took several attempts. */
  attempts(count: string): string;
  /** The run's link text, with its id as code. */
  run(id: string): string;
  /** "On it": the automation `name` (bold) took the thread on. */
  onIt(name: string): string;
  /** How solvable the issue looks, a percentage, and the estimate's summary. */
  solvability(percent: string, summary: string): string;
  /** The agent of `name` (bold) waits for approval to use `tool` (as code). */
  held(name: string, tool: string): string;
  /** The security analyzer's rating of a held action (`level` already bold). */
  risk(level: string): string;
  /** How to answer an approval request. */
  howToApprove: string;
  /** An action held without a summary. */
  noSummary: string;
  /** A run a budget kept from starting: spent of the limit, and when the budget resets. */
  notStartedBudget(spent: string, limit: string, resets: string): string;
  /** Checks named `check` failed on `commit`; `mention` is the handle to reply with. */
  failedChecks(check: string, commit: string, mention: string): string;
}

const en: RunCommentPhrases = {
  outcome: {
    COMPLETED: (name) => `${name} ✅ completed.`,
    FAILED: (name) => `${name} ❌ failed.`,
    CANCELLED: (name) => `${name} ⏹️ was cancelled.`,
    SKIPPED: (name) => `${name} ⏭️ was skipped.`,
  },
  noAnswer: '_The agent gave no final answer._',
  cut: (more) => `… (cut: ${more} more characters in the run's conversation)`,
  attempts: (count) => ` · ${count} attempts`,
  run: (id) => `Run ${id}`,
  onIt: (name) => `👀 ${name} is on it.`,
  solvability: (percent, summary) => `Solvability: **${percent}** — ${summary}`,
  held: (name, tool) => `⏸️ ${name} waits for approval to use ${tool}:`,
  risk: (level) => `Risk: ${level}`,
  howToApprove: 'Reply `/approve` to let it, or `/reject` with a reason to refuse (people who may command the agent).',
  noSummary: '(no summary)',
  notStartedBudget: (spent, limit, resets) => `Not started: a budget is spent (${spent} of ${limit}); it resets on ${resets}.`,
  failedChecks: (check, commit, mention) => `❌ ${check} failed on ${commit}. Reply \`${mention} fix the failing checks\` and I will look into it.`,
};

const de: RunCommentPhrases = {
  outcome: {
    COMPLETED: (name) => `${name} ✅ abgeschlossen.`,
    FAILED: (name) => `${name} ❌ fehlgeschlagen.`,
    CANCELLED: (name) => `${name} ⏹️ wurde abgebrochen.`,
    SKIPPED: (name) => `${name} ⏭️ wurde übersprungen.`,
  },
  noAnswer: '_Der Agent hat keine abschließende Antwort gegeben._',
  cut: (more) => `… (gekürzt: ${more} weitere Zeichen in der Unterhaltung des Laufs)`,
  attempts: (count) => ` · ${count} Versuche`,
  run: (id) => `Lauf ${id}`,
  onIt: (name) => `👀 ${name} kümmert sich darum.`,
  solvability: (percent, summary) => `Lösbarkeit: **${percent}** — ${summary}`,
  held: (name, tool) => `⏸️ ${name} wartet auf die Freigabe, ${tool} zu verwenden:`,
  risk: (level) => `Risiko: ${level}`,
  howToApprove:
    'Antworten Sie mit `/approve`, um es zu erlauben, oder mit `/reject` und einer Begründung, um es abzulehnen (nur Personen, die dem Agenten Anweisungen geben dürfen).',
  noSummary: '(keine Zusammenfassung)',
  notStartedBudget: (spent, limit, resets) => `Nicht gestartet: Ein Budget ist aufgebraucht (${spent} von ${limit}); es wird am ${resets} zurückgesetzt.`,
  failedChecks: (check, commit, mention) =>
    `❌ ${check} ist bei ${commit} fehlgeschlagen. Antworten Sie mit \`${mention} behebe die fehlgeschlagenen Checks\`, dann sehe ich mir das an.`,
};

const fr: RunCommentPhrases = {
  outcome: {
    COMPLETED: (name) => `${name} ✅ terminé.`,
    FAILED: (name) => `${name} ❌ a échoué.`,
    CANCELLED: (name) => `${name} ⏹️ a été annulé.`,
    SKIPPED: (name) => `${name} ⏭️ a été ignoré.`,
  },
  noAnswer: "_L'agent n'a pas donné de réponse finale._",
  cut: (more) => `… (coupé : ${more} caractères de plus dans la conversation de l'exécution)`,
  attempts: (count) => ` · ${count} tentatives`,
  run: (id) => `Exécution ${id}`,
  onIt: (name) => `👀 ${name} s'en occupe.`,
  solvability: (percent, summary) => `Chances de résolution : **${percent}** — ${summary}`,
  held: (name, tool) => `⏸️ ${name} attend une approbation pour utiliser ${tool} :`,
  risk: (level) => `Risque : ${level}`,
  howToApprove: "Répondez `/approve` pour l'autoriser, ou `/reject` avec une raison pour refuser (les personnes autorisées à donner des ordres à l'agent).",
  noSummary: '(pas de résumé)',
  notStartedBudget: (spent, limit, resets) => `Non démarré : un budget est épuisé (${spent} sur ${limit}) ; il sera réinitialisé le ${resets}.`,
  failedChecks: (check, commit, mention) =>
    `❌ ${check} a échoué sur ${commit}. Répondez \`${mention} corrige les vérifications en échec\` et je m'en occuperai.`,
};

const es: RunCommentPhrases = {
  outcome: {
    COMPLETED: (name) => `${name} ✅ completado.`,
    FAILED: (name) => `${name} ❌ falló.`,
    CANCELLED: (name) => `${name} ⏹️ fue cancelado.`,
    SKIPPED: (name) => `${name} ⏭️ se omitió.`,
  },
  noAnswer: '_El agente no dio una respuesta final._',
  cut: (more) => `… (recortado: ${more} caracteres más en la conversación de la ejecución)`,
  attempts: (count) => ` · ${count} intentos`,
  run: (id) => `Ejecución ${id}`,
  onIt: (name) => `👀 ${name} se está encargando.`,
  solvability: (percent, summary) => `Probabilidad de resolverlo: **${percent}** — ${summary}`,
  held: (name, tool) => `⏸️ ${name} espera aprobación para usar ${tool}:`,
  risk: (level) => `Riesgo: ${level}`,
  howToApprove: 'Responda `/approve` para permitirlo, o `/reject` con un motivo para rechazarlo (las personas que pueden dar órdenes al agente).',
  noSummary: '(sin resumen)',
  notStartedBudget: (spent, limit, resets) => `No iniciado: se agotó un presupuesto (${spent} de ${limit}); se restablece el ${resets}.`,
  failedChecks: (check, commit, mention) => `❌ ${check} falló en ${commit}. Responda \`${mention} arregla las comprobaciones fallidas\` y lo revisaré.`,
};

const pt: RunCommentPhrases = {
  outcome: {
    COMPLETED: (name) => `${name} ✅ concluído.`,
    FAILED: (name) => `${name} ❌ falhou.`,
    CANCELLED: (name) => `${name} ⏹️ foi cancelado.`,
    SKIPPED: (name) => `${name} ⏭️ foi ignorado.`,
  },
  noAnswer: '_O agente não deu uma resposta final._',
  cut: (more) => `… (cortado: mais ${more} caracteres na conversa da execução)`,
  attempts: (count) => ` · ${count} tentativas`,
  run: (id) => `Execução ${id}`,
  onIt: (name) => `👀 ${name} está cuidando disso.`,
  solvability: (percent, summary) => `Chance de resolução: **${percent}** — ${summary}`,
  held: (name, tool) => `⏸️ ${name} aguarda aprovação para usar ${tool}:`,
  risk: (level) => `Risco: ${level}`,
  howToApprove: 'Responda `/approve` para permitir, ou `/reject` com um motivo para recusar (as pessoas que podem dar ordens ao agente).',
  noSummary: '(sem resumo)',
  notStartedBudget: (spent, limit, resets) => `Não iniciado: um orçamento se esgotou (${spent} de ${limit}); ele é reiniciado em ${resets}.`,
  failedChecks: (check, commit, mention) => `❌ ${check} falhou em ${commit}. Responda \`${mention} corrija as verificações com falha\` e eu vou analisar.`,
};

const it: RunCommentPhrases = {
  outcome: {
    COMPLETED: (name) => `${name} ✅ completato.`,
    FAILED: (name) => `${name} ❌ non riuscito.`,
    CANCELLED: (name) => `${name} ⏹️ è stato annullato.`,
    SKIPPED: (name) => `${name} ⏭️ è stato saltato.`,
  },
  noAnswer: "_L'agente non ha dato una risposta finale._",
  cut: (more) => `… (tagliato: altri ${more} caratteri nella conversazione dell'esecuzione)`,
  attempts: (count) => ` · ${count} tentativi`,
  run: (id) => `Esecuzione ${id}`,
  onIt: (name) => `👀 ${name} se ne sta occupando.`,
  solvability: (percent, summary) => `Probabilità di risoluzione: **${percent}** — ${summary}`,
  held: (name, tool) => `⏸️ ${name} attende l'approvazione per usare ${tool}:`,
  risk: (level) => `Rischio: ${level}`,
  howToApprove: "Rispondi `/approve` per consentirlo, oppure `/reject` con un motivo per rifiutarlo (le persone che possono dare ordini all'agente).",
  noSummary: '(nessun riepilogo)',
  notStartedBudget: (spent, limit, resets) => `Non avviato: un budget è esaurito (${spent} su ${limit}); si azzera il ${resets}.`,
  failedChecks: (check, commit, mention) =>
    `❌ ${check} non è riuscito su ${commit}. Rispondi \`${mention} correggi i controlli non riusciti\` e me ne occuperò.`,
};

const ja: RunCommentPhrases = {
  outcome: {
    COMPLETED: (name) => `${name} ✅ 完了しました。`,
    FAILED: (name) => `${name} ❌ 失敗しました。`,
    CANCELLED: (name) => `${name} ⏹️ キャンセルされました。`,
    SKIPPED: (name) => `${name} ⏭️ スキップされました。`,
  },
  noAnswer: '_エージェントは最終回答を返しませんでした。_',
  cut: (more) => `…（省略: 残りの ${more} 文字は実行の会話にあります）`,
  attempts: (count) => ` · ${count} 回試行`,
  run: (id) => `実行 ${id}`,
  onIt: (name) => `👀 ${name} が対応中です。`,
  solvability: (percent, summary) => `解決可能性: **${percent}** — ${summary}`,
  held: (name, tool) => `⏸️ ${name} は ${tool} を使う承認を待っています:`,
  risk: (level) => `リスク: ${level}`,
  howToApprove: '許可するには `/approve`、拒否するには理由を添えて `/reject` と返信してください（エージェントに指示できる人のみ）。',
  noSummary: '（概要なし）',
  notStartedBudget: (spent, limit, resets) => `開始されませんでした: 予算を使い切りました（${limit} のうち ${spent}）。${resets} にリセットされます。`,
  failedChecks: (check, commit, mention) =>
    `❌ ${check} が ${commit} で失敗しました。\`${mention} 失敗しているチェックを直して\` と返信していただければ対応します。`,
};

const zhCN: RunCommentPhrases = {
  outcome: {
    COMPLETED: (name) => `${name} ✅ 已完成。`,
    FAILED: (name) => `${name} ❌ 失败。`,
    CANCELLED: (name) => `${name} ⏹️ 已取消。`,
    SKIPPED: (name) => `${name} ⏭️ 已跳过。`,
  },
  noAnswer: '_智能体没有给出最终答复。_',
  cut: (more) => `…（已截断：其余 ${more} 个字符见本次运行的对话）`,
  attempts: (count) => ` · 尝试 ${count} 次`,
  run: (id) => `运行 ${id}`,
  onIt: (name) => `👀 ${name} 正在处理。`,
  solvability: (percent, summary) => `可解决性：**${percent}** — ${summary}`,
  held: (name, tool) => `⏸️ ${name} 正在等待批准使用 ${tool}：`,
  risk: (level) => `风险：${level}`,
  howToApprove: '回复 `/approve` 表示允许，或回复 `/reject` 并附上理由表示拒绝（仅限可以向该智能体下达指令的人）。',
  noSummary: '（无摘要）',
  notStartedBudget: (spent, limit, resets) => `未启动：预算已用完（${limit} 中已用 ${spent}），将于 ${resets} 重置。`,
  failedChecks: (check, commit, mention) => `❌ ${check} 在 ${commit} 上失败。回复 \`${mention} 修复失败的检查\`，我会进行处理。`,
};

const ko: RunCommentPhrases = {
  outcome: {
    COMPLETED: (name) => `${name} ✅ 완료되었습니다.`,
    FAILED: (name) => `${name} ❌ 실패했습니다.`,
    CANCELLED: (name) => `${name} ⏹️ 취소되었습니다.`,
    SKIPPED: (name) => `${name} ⏭️ 건너뛰었습니다.`,
  },
  noAnswer: '_에이전트가 최종 답변을 하지 않았습니다._',
  cut: (more) => `… (잘림: 나머지 ${more}자는 실행의 대화에 있습니다)`,
  attempts: (count) => ` · ${count}회 시도`,
  run: (id) => `실행 ${id}`,
  onIt: (name) => `👀 ${name}: 작업 중입니다.`,
  solvability: (percent, summary) => `해결 가능성: **${percent}** — ${summary}`,
  held: (name, tool) => `⏸️ ${name}: ${tool} 사용 승인을 기다리고 있습니다:`,
  risk: (level) => `위험도: ${level}`,
  howToApprove: '허용하려면 `/approve`, 거부하려면 이유와 함께 `/reject`로 답글을 남겨 주세요(에이전트에게 지시할 수 있는 사람만).',
  noSummary: '(요약 없음)',
  notStartedBudget: (spent, limit, resets) => `시작되지 않음: 예산을 모두 사용했습니다(${limit} 중 ${spent}). ${resets}에 초기화됩니다.`,
  failedChecks: (check, commit, mention) => `❌ ${check}: ${commit}에서 실패했습니다. \`${mention} 실패한 검사를 고쳐 줘\`라고 답글을 남기시면 살펴보겠습니다.`,
};

export const RUN_COMMENT_PHRASES: Readonly<Record<CommentLocale, RunCommentPhrases>> = { en, de, fr, es, pt, it, ja, 'zh-CN': zhCN, ko };
