/*
** grammar/query.y: the Lemon grammar of DTail's MapReduce query dialect.
**
** This file is the source. CMake runs lemon on it at build time and the
** generated query.c/query.h live in the build tree only: never edit them.
** The dialect is described in docs/query-language.md; DTail's own rules are
** in ../shared/reference/dtail-behaviour.md section 2.
**
** Division of labour (as in SQLite's parse.y):
**   - parser/tokenize.c cuts the text into tokens ({offset,len} views) and
**     decides which words are keywords or operators;
**   - this grammar only recognises the shape of a query and builds the AST
**     through one call per action into parser/ast.c;
**   - names, aggregates, functions and operators are checked afterwards by
**     parser/resolve.c and parser/plan.c, which know the log formats.
**
** The grammar is deliberately permissive where a semantic check gives a
** better message than "syntax error": a where condition accepts any word as
** its operator (ast_cond reports "unknown operator"), select accepts an empty
** list (ast_clause reports "empty select"), and so on.
**
** There is no error recovery: the first error wins (YYNOERRORRECOVERY), and
** the driver in parser/parse.c stops feeding tokens as soon as the context
** holds an error.
*/

%token_prefix TK_
%name QueryParse
%extra_context {parse_ctx_t *ctx}
%token_type {token_t}
%default_type {token_t}
%stack_size 1000
%start_symbol query

%include {
#include <assert.h>
#include <stddef.h>
#include "parser/parse_int.h"
#include "parser/ast.h"

/* Abandon the parse at the first syntax error (see parser/parse.c). */
#define YYNOERRORRECOVERY 1
/* The driver never passes a NULL engine. */
#define YYPARSEFREENEVERNULL 1
/* The engine lives in the query's arena (QueryParseSize + QueryParseInit). */
#define QueryParse_ENGINEALWAYSONSTACK 1
}

%syntax_error {
  parse_syntax_error(ctx, yymajor, &TOKEN);
}
%stack_overflow {
  parse_stack_overflow(ctx);
}

/* Token numbering. Clause keywords first: they are never field names (use
** backticks: `from`). Then the words DTail does not reserve: they fall back
** to ID wherever a keyword meaning makes no sense, so `by`, `and`, `or`,
** `not`, `in`, `append` and the string operators still work as field names.
** HAVING is the one clause keyword DTail did not have. */
%token SELECT FROM WHERE SET GROUP ORDER RORDER INTERVAL LIMIT OUTFILE LOGFORMAT HAVING.
%token ID NUMBER STRING BQUOTED.
%fallback ID BY AND APPEND
             EQS NES CONTAINS NCONTAINS LACKS
             HASPREFIX NHASPREFIX HASSUFFIX NHASSUFFIX
             OR NOT IN MATCHES NMATCHES.
%token EQ NE LT LE GT GE ASSIGN LP RP PLUS MINUS STAR SLASH.
/* '(' and '*' after a comma (parser/parse.c): the comma ends an item, so
** the next one starts, never a call `name (...)` or a product `a * b`. */
%token LPS STARF.
/* `.a.b` right after a call's ')' (json($log).level): its path. */
%token PATH.
/* Produced by the tokenizer, never fed to the parser. */
%token SPACE ILLEGAL.

/* Arithmetic binds as usual. LOWEST is the precedence of the rules that
** end an item where the next token could either continue it or start the
** next item: `select a * b` multiplies (STAR is also the field `*`),
** `where a > b (c)` calls b (write `and` before a group after a bareword),
** `where a > b * 2` multiplies the right-hand side. */
%left LOWEST.
%left PLUS MINUS.
%left STAR SLASH.
%left LP.

/* ---------------------------------------------------------------- query */

query ::= clauses.

clauses ::= clause.
clauses ::= clauses clause.

/* select: zero items parse, so ast_clause can say "empty select". */
clause ::= SELECT(K) exprs(L).
  { ast_clause(ctx, &K, L); }

/* from TABLE, interval N, limit N: exactly one word. A missing word is
** reported by ast_clause with the keyword's position. logformat NAME takes
** the format's options after the name as a flat list of words (`delimiter
** ";" timeformat "%d/%b/%Y"`, a pattern's text first): parser/lfopts.c
** pairs them and says what is wrong better than "syntax error" could. */
clause ::= FROM(K) term(T).        { ast_clause_word(ctx, &K, &T); }
clause ::= FROM(K).                { ast_clause_word(ctx, &K, NULL); }
clause ::= INTERVAL(K) term(T).    { ast_clause_word(ctx, &K, &T); }
clause ::= INTERVAL(K).            { ast_clause_word(ctx, &K, NULL); }
clause ::= LIMIT(K) term(T).       { ast_clause_word(ctx, &K, &T); }
clause ::= LIMIT(K).               { ast_clause_word(ctx, &K, NULL); }
clause ::= LOGFORMAT(K) term(T) lfopts(L).  { ast_logformat(ctx, &K, &T, L); }
clause ::= LOGFORMAT(K).           { ast_clause_word(ctx, &K, NULL); }

%type lfopts {ast_list_t*}
%destructor lfopts { ast_discard(ctx, $$); }
lfopts(A) ::= .                     { A = ast_list(ctx, NULL, NULL); }
lfopts(A) ::= lfopts(L) term(T).    { A = ast_list(ctx, L, ast_term(ctx, &T)); }

/* outfile PATH | outfile append PATH. `append:PATH` is one word, so it is a
** file literally named "append:PATH", as in DTail. */
clause ::= OUTFILE(K) term(P).            { ast_outfile(ctx, &K, NULL, &P); }
clause ::= OUTFILE(K) APPEND(A) term(P).  { ast_outfile(ctx, &K, &A, &P); }
clause ::= OUTFILE(K) APPEND(A).          { ast_outfile(ctx, &K, &A, NULL); }
clause ::= OUTFILE(K).                    { ast_outfile(ctx, &K, NULL, NULL); }

/* where [CONDITION]: an empty where is accepted, as in DTail. having
** CONDITION: the same condition over the groups (ast_where says that an
** empty having needs one). */
clause ::= WHERE(K).               { ast_where(ctx, &K, NULL); }
clause ::= WHERE(K) orexpr(E).     { ast_where(ctx, &K, E); }
clause ::= HAVING(K).              { ast_where(ctx, &K, NULL); }
clause ::= HAVING(K) orexpr(E).    { ast_where(ctx, &K, E); }

/* set $VAR = RHS { $VAR = RHS } */
clause ::= SET(K) assigns(L).      { ast_clause(ctx, &K, L); }

/* group [by] FIELD {FIELD} */
clause ::= GROUP(K) optby exprs(L).  { ast_clause(ctx, &K, L); }

/* order [by] FIELD {ignored}: DTail silently ignores trailing words such as
** `desc` or `reverse`; we keep them only to warn about them. */
clause ::= ORDER(K) optby exprs(L).   { ast_clause(ctx, &K, L); }
clause ::= RORDER(K) optby exprs(L).  { ast_clause(ctx, &K, L); }

optby ::= .
optby ::= BY.

/* ---------------------------------------------------------- expressions */

%type exprs {ast_list_t*}
%destructor exprs { ast_discard(ctx, $$); }
exprs(A) ::= .                          { A = ast_list(ctx, NULL, NULL); }
exprs(A) ::= exprs(L) expr(E). [LOWEST] { A = ast_list(ctx, L, E); }

/* A value: a word, a call, `*` (the field of that name where a value is
** expected), or arithmetic over values. ast_arith checks the operands. */
%type expr {ast_expr_t*}
%destructor expr { ast_discard(ctx, $$); }
expr(A) ::= term(T).                      { A = ast_term(ctx, &T); }
expr(A) ::= STAR(T).                      { A = ast_term(ctx, &T); }
expr(A) ::= STARF(T).                     { A = ast_term(ctx, &T); }
expr(A) ::= ID(N) LP exprs(L) RP(R).      { A = ast_call(ctx, &N, L, &R); }
expr(A) ::= ID(N) LP exprs(L) RP PATH(P). { A = ast_call_path(ctx, &N, L, &P); }
expr(A) ::= lp(L) expr(E) RP(R).          { A = ast_paren(ctx, &L, E, &R); }

/* A '(' that opens a group (any but a call's). */
lp(A) ::= LP(T).   { A = T; }
lp(A) ::= LPS(T).  { A = T; }
expr(A) ::= expr(L) PLUS(O) expr(R).      { A = ast_arith(ctx, L, &O, R); }
expr(A) ::= expr(L) MINUS(O) expr(R).     { A = ast_arith(ctx, L, &O, R); }
expr(A) ::= expr(L) STAR(O) expr(R).      { A = ast_arith(ctx, L, &O, R); }
expr(A) ::= expr(L) SLASH(O) expr(R).     { A = ast_arith(ctx, L, &O, R); }

/* One word. The token keeps its lexical type (a fallback keyword keeps its
** own), which is how ast_term tells a quoted string from a bareword. */
term(A) ::= ID(T). [LOWEST] { A = T; }
term(A) ::= NUMBER(T).   { A = T; }
term(A) ::= STRING(T).   { A = T; }
term(A) ::= BQUOTED(T).  { A = T; }

/* Conditions of where and having: `and` binds tighter than `or`, and two
** conditions side by side are joined by `and` (DTail's implicit and).
** `or` is right-recursive so that it is shifted, never looked up after a
** default reduction: there, a fallback word (`or` falls back to ID) would
** be read as the start of the next condition. a or (b or c) means the
** same as (a or b) or c, and the planner flattens both. */
%type orexpr {ast_expr_t*}
%destructor orexpr { ast_discard(ctx, $$); }
orexpr(A) ::= andexpr(E).                   { A = E; }
orexpr(A) ::= andexpr(L) OR(O) orexpr(R).   { A = ast_bool(ctx, L, &O, R); }

%type andexpr {ast_expr_t*}
%destructor andexpr { ast_discard(ctx, $$); }
andexpr(A) ::= unary(E).                    { A = E; }
andexpr(A) ::= andexpr(L) unary(R).         { A = ast_bool(ctx, L, NULL, R); }
andexpr(A) ::= andexpr(L) AND(O) unary(R).  { A = ast_bool(ctx, L, &O, R); }

%type unary {ast_expr_t*}
%destructor unary { ast_discard(ctx, $$); }
unary(A) ::= NOT(O) unary(E).               { A = ast_bool(ctx, E, &O, NULL); }
unary(A) ::= lp(L) orexpr(E) RP(R).         { A = ast_paren(ctx, &L, E, &R); }
unary(A) ::= cond(C).                       { A = C; }

%type assigns {ast_list_t*}
%destructor assigns { ast_discard(ctx, $$); }
assigns(A) ::= .                      { A = ast_list(ctx, NULL, NULL); }
assigns(A) ::= assigns(L) cond(C).    { A = ast_list(ctx, L, C); }

/* LHS OP RHS. Any word is accepted as OP here; ast_cond checks it against
** the clause (comparison or string operator for where and having, '=' for
** set). LHS [not] in (LIST): a list of literals. */
%type cond {ast_expr_t*}
%destructor cond { ast_discard(ctx, $$); }
cond(A) ::= expr(L) op(O) expr(R). [LOWEST]   { A = ast_cond(ctx, L, &O, R); }
cond(A) ::= expr(L) IN(O) lp exprs(V) RP(R).  { A = ast_in(ctx, L, NULL, &O, V, &R); }
cond(A) ::= expr(L) NOT(N) IN(O) lp exprs(V) RP(R).
                                              { A = ast_in(ctx, L, &N, &O, V, &R); }

op(A) ::= EQ(T).      { A = T; }
op(A) ::= NE(T).      { A = T; }
op(A) ::= LT(T).      { A = T; }
op(A) ::= LE(T).      { A = T; }
op(A) ::= GT(T).      { A = T; }
op(A) ::= GE(T).      { A = T; }
op(A) ::= ASSIGN(T).  { A = T; }
op(A) ::= EQS(T).     { A = T; }
op(A) ::= NES(T).     { A = T; }
op(A) ::= CONTAINS(T).   { A = T; }
op(A) ::= NCONTAINS(T).  { A = T; }
op(A) ::= LACKS(T).      { A = T; }
op(A) ::= HASPREFIX(T).  { A = T; }
op(A) ::= NHASPREFIX(T). { A = T; }
op(A) ::= HASSUFFIX(T).  { A = T; }
op(A) ::= NHASSUFFIX(T). { A = T; }
op(A) ::= MATCHES(T).    { A = T; }
op(A) ::= NMATCHES(T).   { A = T; }
op(A) ::= ID(T).         { A = T; }
op(A) ::= NUMBER(T).     { A = T; }
op(A) ::= STRING(T).     { A = T; }
op(A) ::= BQUOTED(T).    { A = T; }

%code {
/* Size of the engine, so parser/parse.c can place it in the query arena
** instead of calling QueryParseAlloc (whose malloc hook has no context). */
size_t QueryParseSize(void) { return sizeof(yyParser); }
}
