/* grammar/query.y: the Lemon grammar of DTail's query dialect.
 * This file is the source; the generated query.c in the build tree must not
 * be edited. Placeholder until the query-language issue lands: it accepts a
 * sequence of words. */
%token_prefix TK_
%name QueryParse
%extra_argument { int *n_words }
%token_type { int }
%syntax_error { (void)yymajor; (void)yyminor; *n_words = -1; }

query ::= words.
words ::= .
words ::= words WORD. { (*n_words)++; }
