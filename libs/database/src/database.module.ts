import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { dataSourceOptions } from './data-source-options.js';

@Module({})
export class DatabaseModule {
  /** `url` is resolved by the bootstrap (external Postgres, or the embedded one it started). */
  static forRoot(url: string, poolSize: number): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRoot({
          ...dataSourceOptions(url, poolSize),
          autoLoadEntities: true,
          migrationsRun: false,
          logging: false,
        }),
      ],
      exports: [TypeOrmModule],
    };
  }
}
